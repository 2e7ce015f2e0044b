/**
 * A schema-driven fuzz of an OpenAPI document, against the real app that published it: for every
 * operation, a request valid enough to reach the route, then the same request with one field,
 * parameter or query value at a time replaced by a hostile value (fixed classics plus fast-check
 * samples from a fixed seed). It reports every 5xx, every error body outside the area's envelope,
 * every stack trace or SQL text in a body, and every row count that changed after a refused request.
 */
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { Store } from '../../cloud/db/index.ts';
import { unboundedNumbers } from '../../shared/http/validation.ts';

type Schema = Record<string, unknown>;
export type Area = 'general' | 'billing' | 'pnl';

export interface Operation {
  method: string;
  path: string;
  params: Schema[];
  query: Schema[];
  body: Schema | undefined;
  contentType: string | undefined;
  security: string[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}

/** The operations of an OpenAPI 3 document, with the schema of each part. */
export function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = raw as {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        security?: Array<Record<string, unknown>>;
      };
      const parameters = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => ({ ...p.schema, 'x-name': p.name })),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ ...p.schema, 'x-name': p.name, 'x-required': p.required === true })),
        body: contentType ? content[contentType]!.schema : undefined,
        contentType,
        security: (op.security ?? []).flatMap((entry) => Object.keys(entry)),
      });
    }
  }
  return operations;
}

/** A JSON text inserted as it is: `1e400` is valid JSON that no JavaScript value serialises to. */
class RawJson {
  constructor(readonly text: string) {}
}
const raw = (text: string) => new RawJson(text);

function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item) => {
    if (item instanceof RawJson) {
      raws.push(item.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return item;
  });
  return (text ?? 'null').replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]!);
}

/** Ids the harness knows to exist, by the name of the field or parameter that carries one. */
export type KnownIds = Record<string, unknown>;

const typeOf = (schema: Schema): string | undefined => {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null');
  return undefined;
};

const branches = (schema: Schema) => (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;

/** A value the schema accepts, as plausible as we can make it, so a request reaches its route. */
export function validValue(schema: Schema, name: string, ids: KnownIds, depth = 0): unknown {
  if (name in ids) return ids[name];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  const options = branches(schema);
  if (options) {
    const choice = options.find((option) => typeOf(option) !== 'null') ?? options[0]!;
    return validValue(choice, name, ids, depth);
  }
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => validValue(part, name, ids, depth)));
  switch (typeOf(schema)) {
    case 'integer':
    case 'number':
      return validNumber(schema);
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.max(1, Number(schema.minItems ?? 0));
      if (depth > 6) return [];
      return Array.from({ length: count }, () =>
        validValue((schema.items ?? {}) as Schema, name, ids, depth + 1),
      );
    }
    case 'object':
      return validObject(schema, ids, depth);
    case 'string':
      return validString(schema, name);
    case 'null':
      return null;
    default:
      return schema.properties ? validObject(schema, ids, depth) : 'value';
  }
}

function validNumber(schema: Schema) {
  const low = Number(
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : 1),
  );
  const high = Number(
    schema.maximum ??
      (schema.exclusiveMaximum !== undefined ? Number(schema.exclusiveMaximum) - 1 : low + 10),
  );
  const value = Math.min(Math.max(1, low), high);
  return typeOf(schema) === 'integer' ? Math.ceil(value) : value;
}

function validObject(schema: Schema, ids: KnownIds, depth: number) {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const value: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (required.has(key) || key in ids) value[key] = validValue(property, key, ids, depth + 1);
  }
  return value;
}

const FORMATS: Record<string, () => string> = {
  'date-time': () => '2026-06-10T12:00:00.000Z',
  date: () => '2026-06-10',
  time: () => '12:00:00',
  email: () => 'fuzz@example.test',
  uri: () => 'https://example.test/hook',
  url: () => 'https://example.test/hook',
  hostname: () => 'example.test',
  ipv4: () => '192.0.2.1',
  uuid: () => '01900000-0000-7000-8000-00000000f022',
};

function validString(schema: Schema, name: string) {
  if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format]!();
  if (typeof schema.pattern === 'string') {
    const [sample] = fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { seed: 7, numRuns: 1 });
    if (sample !== undefined) return sample.slice(0, Number(schema.maxLength ?? sample.length));
  }
  if (/(^|_)date$|_day$|^day$|^from$|^to$|_from$|_to$/.test(name)) return '2026-06-10';
  if (/month$/.test(name)) return '2026-06';
  const minimum = Number(schema.minLength ?? 1);
  return 'fuzz'.padEnd(Math.max(minimum, 4), 'z').slice(0, Number(schema.maxLength ?? 64));
}

/** Classic hostile values for a field of a type, then fast-check's. */
function fixedHostile(schema: Schema, inText: boolean): unknown[] {
  const type = typeOf(schema) ?? typeOf(branches(schema)?.[0] ?? {});
  const common: unknown[] = inText
    ? ['', ' ', 'null', '%00', '\u0000', '\ud800', 'x'.repeat(5000), raw('%FF%FE'), raw('%E0%A4%A')]
    : [null, '', [], {}, '\u0000', '\ud800x', 'x'.repeat(100_000)];
  if (type === 'integer' || type === 'number') {
    const numbers: unknown[] = inText
      ? [
          '1e400',
          '-1e400',
          'Infinity',
          'NaN',
          '0x10',
          '1.5',
          '-1',
          '99999999999999999999999',
          '9007199254740993',
        ]
      : [
          raw('1e400'),
          raw('-1e400'),
          raw('1e308'),
          raw('9007199254740993'),
          raw('99999999999999999999999'),
          'Infinity',
          'NaN',
          '1500',
          true,
          -1,
          1.5,
          2 ** 31,
          Number(schema.maximum ?? 0) + 1,
        ];
    // The bounds themselves must be taken, or refused cleanly: a column narrower than the schema
    // says answers 500 only at its edge.
    const bounds = [schema.minimum, schema.maximum].filter((bound) => typeof bound === 'number');
    numbers.push(...(inText ? bounds.map(String) : bounds));
    return [...numbers, ...common];
  }
  if (type === 'boolean') return [...(inText ? ['yes', '2'] : ['true', 1, 'false', 0]), ...common];
  if (type === 'array') return [...common, inText ? 'x' : 'not-an-array', inText ? '' : [raw('1e400')]];
  if (type === 'object') return [...common, 'text', 42, [raw('1e400')], deep(3000)];
  return [
    ...common,
    123,
    true,
    raw('1e400'),
    "' OR '1'='1",
    '../../../etc/passwd',
    '\u202e\u0007<script>',
    '0000-00-00',
    '2026-02-30',
    '9999-99-99T99:99:99Z',
  ];
}

/** Nested `depth` levels deep, as a raw JSON text (far beyond what any schema takes). */
const deep = (depth: number) => raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);

function sampledHostile(seed: number, runs: number, inText: boolean): unknown[] {
  const arbitrary: fc.Arbitrary<unknown> = inText
    ? fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.double().map(String), fc.bigInt().map(String))
    : fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.double(),
        fc.bigInt().map((n) => raw(n.toString())),
      );
  return fc.sample(arbitrary, { seed, numRuns: runs });
}

export interface Failure {
  operation: string;
  mutation: string;
  status: number;
  why: string;
  body: string;
}

export interface FuzzOptions {
  app: FastifyInstance;
  operations: Operation[];
  /** Headers that get a request past authentication, per operation. */
  headersFor(operation: Operation): Record<string, string>;
  ids: KnownIds;
  /** Row counts of every table that a refused request must leave alone. */
  rowCounts(): Promise<Record<string, number>>;
  areaOf(path: string): Area;
  seed: number;
  /** fast-check samples per field, beside the fixed hostile values. */
  runs: number;
  /** Only hostile values of each field's own type (see `ofItsType`). */
  typedOnly?: boolean;
  /** Fields sent with this value, and never with another valid one (a long poll's timeout). */
  pinned?: Record<string, unknown>;
  /** Whether the harness's session still stands, and how to sign in again when it does not. */
  stillSignedIn?: () => Promise<boolean>;
  /** Waits for work a request set going after its answer (an alert's incident flow). */
  settle?: () => Promise<void>;
  signIn?: () => Promise<void>;
}

interface Mutation {
  label: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  rawBody?: string;
}

/** Percent-encoding of any string, lone surrogates included; a RawJson goes into the URL as it is. */
function inUrl(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  return [...Buffer.from(String(value), 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

function requestOf(operation: Operation, mutation: Mutation) {
  const url = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) => inUrl(mutation.params[name]));
  const query = Object.entries(mutation.query).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => `${inUrl(name)}=${inUrl(item)}`),
  );
  const payload =
    mutation.rawBody ??
    (operation.body === undefined
      ? undefined
      : operation.contentType === 'application/json'
        ? toJson(mutation.body)
        : typeof mutation.body === 'string'
          ? mutation.body
          : operation.contentType === 'application/x-www-form-urlencoded'
            ? new URLSearchParams(
                Object.entries(mutation.body as object).map(([k, v]): [string, string] => [k, String(v)]),
              ).toString()
            : String(toJson(mutation.body)));
  return { url: query.length ? `${url}?${query.join('&')}` : url, payload };
}

/**
 * Whether a hostile value has the field's own type, so validation cannot refuse it by type alone:
 * what reaches a store, and so what a second database needs to see.
 */
function ofItsType(schema: Schema, value: unknown, inText: boolean): boolean {
  const type = typeOf(schema) ?? typeOf(branches(schema)?.[0] ?? {});
  if (type === 'integer' || type === 'number')
    return inText
      ? typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)
      : typeof value === 'number' || value instanceof RawJson;
  if (type === 'string') return typeof value === 'string';
  return false;
}

/** A value a pinned field accepts: sent, it would only make the request wait (a long poll's timeout). */
function withinRange(schema: Schema, value: unknown) {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return false;
  return number >= Number(schema.minimum ?? -Infinity) && number <= Number(schema.maximum ?? Infinity);
}

interface Plan {
  ids: KnownIds;
  pinned: Record<string, unknown>;
  seed: number;
  runs: number;
  typedOnly: boolean;
}

/** Mutations of one operation: its valid request, then one part at a time made hostile. */
function* mutationsOf(operation: Operation, plan: Plan): Generator<Mutation> {
  const { seed, runs, typedOnly } = plan;
  const ids: KnownIds = { ...plan.ids, ...(plan.pinned as KnownIds) };
  const params = Object.fromEntries(
    operation.params.map((p) => [p['x-name'] as string, validValue(p, p['x-name'] as string, ids)]),
  );
  const query = Object.fromEntries(
    operation.query
      .filter((q) => q['x-required'] || (q['x-name'] as string) in ids)
      .map((q) => [q['x-name'] as string, validValue(q, q['x-name'] as string, ids)]),
  );
  const body = operation.body ? validValue(operation.body, 'body', ids) : undefined;
  yield { label: 'valid', params, query, body };
  let n = 0;
  const hostile = (schema: Schema, inText: boolean, name?: string) =>
    [...fixedHostile(schema, inText), ...sampledHostile(seed + n++, runs, inText)].filter(
      (value) =>
        (!typedOnly || ofItsType(schema, value, inText)) &&
        !(name !== undefined && name in plan.pinned && withinRange(schema, value)),
    );
  for (const param of operation.params) {
    const name = param['x-name'] as string;
    for (const value of hostile(param, true))
      if (String(value) !== '')
        yield { label: `params.${name}=${show(value)}`, params: { ...params, [name]: value }, query, body };
    yield { label: `params.${name}=long`, params: { ...params, [name]: 'a'.repeat(300) }, query, body };
  }
  for (const field of operation.query) {
    const name = field['x-name'] as string;
    for (const value of hostile(field, true, name))
      yield { label: `query.${name}=${show(value)}`, params, query: { ...query, [name]: value }, body };
    if (!typedOnly)
      yield { label: `query.${name} twice`, params, query: { ...query, [name]: ['1', '2'] }, body };
  }
  if (!operation.body) return;
  if (typeOf(operation.body) === 'string') {
    for (const value of hostile(operation.body, true))
      if (typeof value === 'string')
        yield { label: `body text ${show(value)}`, params, query, body, rawBody: value };
  }
  yield* bodyMutations(operation.body, body, [], hostile, { params, query });
  if (typedOnly) return;
  for (const text of ['', 'null', '[]', '"text"', '{"a":', `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`])
    yield { label: `body raw ${text.slice(0, 12)}`, params, query, body, rawBody: text };
}

function* bodyMutations(
  schema: Schema,
  valid: unknown,
  path: string[],
  hostile: (schema: Schema, inText: boolean) => unknown[],
  rest: { params: Record<string, unknown>; query: Record<string, unknown> },
): Generator<Mutation> {
  if (path.length > 4) return;
  const properties = (schema.properties ?? branches(schema)?.find((b) => b.properties)?.properties) as
    | Record<string, Schema>
    | undefined;
  if (properties && typeof valid === 'object' && valid !== null && !Array.isArray(valid)) {
    for (const [key, property] of Object.entries(properties)) {
      const inner = (valid as Record<string, unknown>)[key] ?? validValue(property, key, {});
      for (const value of hostile(property, false))
        yield {
          label: `body.${[...path, key].join('.')}=${show(value)}`,
          ...rest,
          body: replaced(valid, key, value),
        };
      const nested = bodyMutations(property, inner, [...path, key], hostile, rest);
      for (const mutation of nested) yield { ...mutation, body: replaced(valid, key, mutation.body) };
    }
    yield {
      label: `body.${[...path, 'unexpected'].join('.')}`,
      ...rest,
      body: replaced(valid, 'unexpected_field', 1),
    };
    return;
  }
  const items = schema.items as Schema | undefined;
  if (items && Array.isArray(valid) && valid.length > 0) {
    for (const mutation of bodyMutations(items, valid[0], [...path, '0'], hostile, rest))
      yield { ...mutation, body: [mutation.body, ...valid.slice(1)] };
  }
}

const replaced = (object: unknown, key: string, value: unknown) => ({ ...(object as object), [key]: value });

const show = (value: unknown) => {
  const text =
    value instanceof RawJson ? value.text : typeof value === 'string' ? JSON.stringify(value) : toJson(value);
  return text.length > 40 ? `${text.slice(0, 40)}…(${text.length})` : text;
};

/** What no error body may hold: our code's stack or the database's words. */
const INTERNALS = [
  /\n\s+at .+:\d+:\d+/,
  /node_modules|\.ts:\d+/,
  /SQLITE_|sqlite3|SqliteError/i,
  /syntax error at or near|violates .* constraint|duplicate key value|relation "[^"]+"|invalid input syntax for type|out of range for type/i,
  /\bselect\b[^"]{1,80}\bfrom\b|\binsert into\b|\bupdate\b \S+ \bset\b/i,
];

function envelopeProblem(area: Area, response: LightMyRequestResponse): string | undefined {
  let body: Record<string, unknown>;
  try {
    body = response.json();
  } catch {
    return 'error body is not JSON';
  }
  const requestId = response.headers['x-request-id'];
  if (area === 'billing') {
    const ok =
      typeof body.error === 'string' && typeof body.message === 'string' && Object.keys(body).length === 2;
    return ok ? undefined : 'not the billing error form {error, message}';
  }
  if (area === 'pnl') {
    const ok =
      (typeof body.detail === 'string' || Array.isArray(body.detail)) && Object.keys(body).length === 1;
    return ok ? undefined : 'not the P&L error form {detail}';
  }
  const error = body.error as Record<string, unknown> | undefined;
  const meta = body.meta as Record<string, unknown> | undefined;
  const ok =
    typeof error?.code === 'string' &&
    typeof error.message === 'string' &&
    Array.isArray(error.details) &&
    typeof meta?.request_id === 'string' &&
    meta.request_id === requestId;
  return ok ? undefined : 'not the general error envelope with the request id';
}

const changedTables = (before: Record<string, number>, after: Record<string, number>) =>
  Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);

export interface FuzzReport {
  requests: number;
  refused: number;
  accepted: number;
  /** Operations none of whose requests got past authentication: the fuzz did not reach them. */
  unreached: string[];
  failures: Failure[];
}

/** Runs every mutation of every operation, one request at a time, and collects what went wrong. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = { requests: 0, refused: 0, accepted: 0, unreached: [], failures: [] };
  let counts = await options.rowCounts();
  for (const [index, operation] of options.operations.entries()) {
    const name = `${operation.method} ${operation.path}`;
    let reached = false;
    for (const mutation of mutationsOf(operation, {
      ids: options.ids,
      pinned: options.pinned ?? {},
      seed: options.seed + index * 1000,
      runs: options.runs,
      typedOnly: options.typedOnly === true,
    })) {
      const { url, payload } = requestOf(operation, mutation);
      const send = () =>
        options.app.inject({
          method: operation.method as 'GET',
          url,
          headers: {
            ...options.headersFor(operation),
            ...(payload !== undefined && operation.contentType
              ? { 'content-type': operation.contentType }
              : {}),
          },
          ...(payload !== undefined ? { payload } : {}),
        });
      let response = await send();
      // An earlier mutation may have ended the harness's own session (a sign-out, a revocation).
      if (response.statusCode === 401 && options.signIn && !(await options.stillSignedIn?.())) {
        await options.signIn();
        counts = await options.rowCounts();
        response = await send();
      }
      report.requests += 1;
      if (response.statusCode !== 401 && response.statusCode !== 403) reached = true;
      const fail = (why: string) =>
        report.failures.push({
          operation: name,
          mutation: mutation.label,
          status: response.statusCode,
          why,
          body: response.body.slice(0, 300),
        });
      await options.settle?.();
      const after = await options.rowCounts();
      if (response.statusCode >= 500) fail('5xx');
      if (response.statusCode >= 400) {
        report.refused += 1;
        const problem = envelopeProblem(options.areaOf(operation.path), response);
        if (problem) fail(problem);
        const leak = INTERNALS.find((pattern) => pattern.test(response.body));
        if (leak) fail(`internal detail in the body (${leak.source})`);
        const changed = changedTables(counts, after);
        if (changed.length > 0) fail(`refused, yet rows changed in ${changed.join(', ')}`);
      } else report.accepted += 1;
      counts = after;
    }
    if (!reached) report.unreached.push(name);
  }
  return report;
}

/**
 * Every table's row count in one prepared read on the cloud store's read connection, but for the
 * tables named in `exclude`.
 */
export async function cloudRowCounter(store: Store, exclude: ReadonlySet<string> = new Set()) {
  const { rows } =
    store.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%'`.execute(store.db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema()`.execute(store.db);
  const tables = rows
    .map((row) => row.name)
    .filter((name) => !exclude.has(name) && !name.startsWith('kysely_'));
  // PostgreSQL compiles a query whose estimated cost passes jit_above_cost (an empty table's scan
  // is estimated near a thousand, and the cloud has over a hundred tables): ten milliseconds a
  // count, a minute over the fuzz. Groups of 40 tables each stay well under it.
  const counters: Array<() => Promise<Array<{ t: string; n: number }>>> = [];
  for (let start = 0; start < tables.length; start += 40) {
    const union = sql<{ t: string; n: number }>`${sql.join(
      tables
        .slice(start, start + 40)
        .map((table) => sql`select ${table} as t, count(*) as n from ${sql.table(table)}`),
      sql` union all `,
    )}`.compile(store.db);
    const read = store.prepareRead(union);
    counters.push(() => read(union.parameters));
  }
  return async () =>
    Object.fromEntries(
      (await Promise.all(counters.map((count) => count()))).flat().map((row) => [row.t, Number(row.n)]),
    );
}

/** Every number of every operation's request without a finite range (none, or a route did not start). */
export const unboundedIn = (operations: Operation[]) =>
  operations.flatMap((operation) =>
    [...operation.params, ...operation.query, ...(operation.body ? [operation.body] : [])]
      .flatMap((schema) => unboundedNumbers(schema))
      .map((path) => `${operation.method} ${operation.path} ${path}`),
  );
