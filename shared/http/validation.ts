/**
 * How request values are checked, in both processes: one rule for numbers and types.
 *
 * - A JSON body is validated, never coerced: `"1500"` is not a number and `"true"` not a boolean,
 *   so a client's type bug is reported instead of silently accepted.
 * - Query, path and header values arrive as text: a field typed as a number is parsed from plain
 *   decimal notation only (no `Infinity`, `NaN`, hex or blanks) and must then be finite; Ajv alone
 *   turns `"1e400"` into Infinity and then skips `maximum`, because its range checks only look at
 *   finite numbers.
 * - Every number a request may carry has a finite range (`unboundedNumbers`, checked as each route
 *   is added), so a value the database cannot hold is refused with a 400 before any write.
 * - No text holds U+0000, and no JSON body nests deeper than MAX_JSON_DEPTH (`jsonTextProblem`,
 *   run on the raw text before it is parsed).
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { InvalidRequestError } from './errors.ts';

/** Nesting a JSON body may have: well beyond any of ours, far below what exhausts a stack. */
export const MAX_JSON_DEPTH = 32;

/** The largest integer a request may carry: every integer column holds it exactly. */
export const MAX_SAFE_BOUND = Number.MAX_SAFE_INTEGER;

type Schema = Record<string, unknown>;

interface Issue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

type Validate = ((data: unknown) => boolean | Promise<unknown>) & { errors?: unknown };

const isNumericType = (type: unknown): boolean =>
  type === 'number' || type === 'integer' || (Array.isArray(type) && type.some(isNumericType));

const isNumericField = (field: Schema) =>
  isNumericType(field.type) ||
  (field.type === 'array' && isNumericType((field.items as Schema | undefined)?.type));

/** A plain decimal number: what a client writes in a URL; anything else is not parsed. */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Top-level fields of a text part whose schema is purely numeric, parsed by our rule, not Ajv's. */
function numericFields(schema: Schema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([, field]) => isNumericField(field))
    .map(([name]) => name);
}

const notANumber = (field: string): Issue => ({
  instancePath: `/${field}`,
  schemaPath: `#/properties/${field}/type`,
  keyword: 'type',
  params: { type: 'number' },
  message: 'must be a finite number written in decimal',
});

/** Numbers Ajv coerced itself (a field whose schema is a union) must be finite too. */
function nonFinite(data: unknown): Issue[] {
  if (typeof data !== 'object' || data === null) return [];
  return Object.entries(data)
    .filter(([, value]) => (Array.isArray(value) ? value : [value]).some(isNonFinite))
    .map(([field]) => notANumber(field));
}

const isNonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value);

/**
 * Parses the numeric fields of a query, path or header object in place; a value that is not a
 * plain decimal, or is not finite once parsed, is an issue, and Ajv never sees it as text.
 */
function parseNumbers(data: unknown, fields: string[]): Issue[] {
  if (typeof data !== 'object' || data === null) return [];
  const values = data as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const field of fields) {
    const raw = values[field];
    if (raw === undefined) continue;
    const texts = Array.isArray(raw) ? raw : [raw];
    const parsed = texts.map((text) => (typeof text === 'string' && DECIMAL.test(text) ? Number(text) : NaN));
    if (parsed.some((value) => !Number.isFinite(value))) {
      issues.push(notANumber(field));
      continue;
    }
    values[field] = Array.isArray(raw) ? parsed : parsed[0];
  }
  return issues;
}

/** Query, path and header values holding U+0000 (`%00`). */
function nulIssues(data: unknown): Issue[] {
  if (typeof data !== 'object' || data === null) return [];
  return Object.entries(data)
    .filter(([, value]) =>
      (Array.isArray(value) ? value : [value]).some((v) => typeof v === 'string' && v.includes('\u0000')),
    )
    .map(([field]) => ({
      instancePath: `/${field}`,
      schemaPath: `#/properties/${field}`,
      keyword: 'nul',
      params: {},
      message: NUL_MESSAGE,
    }));
}

/**
 * Wraps a text part's validator: U+0000 is refused, and numbers follow our rule before Ajv
 * checks the rest.
 */
function withTextRules(validate: Validate, schema: Schema): Validate {
  const fields = numericFields(schema);
  const wrapped: Validate = (data: unknown) => {
    const issues = [...nulIssues(data), ...parseNumbers(data, fields)];
    const valid = validate(data);
    if (valid) issues.push(...nonFinite(data));
    if (issues.length === 0) {
      wrapped.errors = validate.errors;
      return valid;
    }
    // Ajv may have reported the same fields as not numbers too: ours say why.
    const others = ((validate.errors ?? []) as Issue[]).filter(
      (issue) => !issues.some((own) => issue.instancePath === own.instancePath),
    );
    wrapped.errors = [...issues, ...others];
    return false;
  };
  return wrapped;
}

/**
 * Fastify's validator factory with our rule: one Ajv for bodies (no coercion) and one for text
 * parts (coercion of text into the declared types, numbers by `parseNumbers`).
 */
const pool = AjvCompiler();

/**
 * Validators by options and schema text, for every app of the process: a schema compiles once,
 * however many times an app is built (the tests build hundreds) and however its routes rebuild
 * their schema objects. A validator is a pure function of its schema and options.
 */
const compiled = new Map<string, Validate>();

export function buildRequestValidator(): AjvCompiler.BuildCompilerFromPool {
  return (externalSchemas, options = {}) => {
    const custom = (options.customOptions ?? {}) as Record<string, unknown>;
    const ajvOptions = (coerceTypes: false | 'array') => ({
      ...options,
      mode: undefined,
      customOptions: { ...custom, coerceTypes },
    });
    const forBody = pool(externalSchemas, ajvOptions(false));
    const forText = pool(externalSchemas, ajvOptions('array'));
    const context = JSON.stringify([externalSchemas, custom]);
    const once = (compile: typeof forBody, route: Parameters<typeof forBody>[0], kind: string) => {
      const key = `${context}${kind}${JSON.stringify(route.schema)}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = compile(route) as Validate;
        compiled.set(key, validate);
      }
      return validate;
    };
    return (route) => {
      if ((route.httpPart ?? 'body') === 'body')
        return once(forBody, route, 'body') as ReturnType<typeof forBody>;
      const validate = once(forText, route, 'text');
      return withTextRules(validate, route.schema as Schema) as ReturnType<typeof forText>;
    };
  };
}

const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'] as const;
const SCHEMA_ONES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

const finiteWithin = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_SAFE_BOUND;

function boundOf(schema: Schema, inclusive: 'minimum' | 'maximum', exclusive: string) {
  return finiteWithin(schema[inclusive]) || finiteWithin(schema[exclusive]);
}

/**
 * Paths of the numbers in a request schema that lack a finite lower or upper bound within the safe
 * integer range. Used when a route is added: a route that forgets a bound does not start.
 */
export function unboundedNumbers(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Schema;
  const found: string[] = [];
  if (isNumericType(node.type) && !('const' in node) && !('enum' in node)) {
    const low = boundOf(node, 'minimum', 'exclusiveMinimum');
    const high = boundOf(node, 'maximum', 'exclusiveMaximum');
    if (!low || !high) found.push(path || '(root)');
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    for (const [i, item] of list.entries()) found.push(...unboundedNumbers(item, `${path}/${key}/${i}`));
  }
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (typeof map === 'object' && map !== null)
      for (const [name, item] of Object.entries(map))
        found.push(...unboundedNumbers(item, `${path}/${name}`));
  }
  for (const key of SCHEMA_ONES) found.push(...unboundedNumbers(node[key], `${path}/${key}`));
  return found;
}

/** U+0000 is no character of any text we keep, and PostgreSQL cannot store it. */
export const NUL_MESSAGE = 'must not contain the character U+0000';

/** For bodies that are not JSON (a CSV, a form): text holding U+0000 is refused. */
export function assertNoNul(text: string) {
  if (text.includes('\u0000')) throw new InvalidRequestError(`The body ${NUL_MESSAGE}`);
}

/** Runs of characters the scan passes over: inside a string, and between strings. */
const STRING_RUN = /[^"\\]*/y;
const STRUCTURE_RUN = /[^"[\]{}]*/y;

/** Where the sticky `run` stops matching from `from`. */
function skip(run: RegExp, text: string, from: number) {
  run.lastIndex = from;
  run.test(text);
  return run.lastIndex;
}

/**
 * What is wrong with a JSON text before it is parsed, in one linear scan: nesting deeper than
 * `maxDepth` (no parser, validator or walk of ours then recurses into a hostile body) or an escaped
 * U+0000 in a string. Raw control characters are the parser's to refuse. The runs between the
 * characters that matter are skipped by the regular expression engine, several times faster than a
 * loop over every character (a push's base64 documents are long strings).
 */
export function jsonTextProblem(text: string, maxDepth: number): 'too deep' | 'nul' | undefined {
  let depth = 0;
  let i = skip(STRUCTURE_RUN, text, 0);
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: to its closing quote, a backslash escaping the character after it.
      i = skip(STRING_RUN, text, i + 1);
      while (text.charCodeAt(i) === 92) {
        if (text.charCodeAt(i + 1) === 117 && text.startsWith('0000', i + 2)) return 'nul';
        i = skip(STRING_RUN, text, i + 2);
      }
    } else if (c === 123 || c === 91) {
      depth++;
      if (depth > maxDepth) return 'too deep';
    } else depth--;
    i = skip(STRUCTURE_RUN, text, i + 1);
  }
  return undefined;
}
