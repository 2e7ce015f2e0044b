/**
 * The API reference of one OpenAPI document as Markdown: operations grouped by tag, each with its
 * method and path, summary, authentication, parameters, request fields and responses, the fields'
 * types and bounds as the route schemas declare them.
 */
import type { OpenApiDocument } from './openapi.ts';

type Schema = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ in: string; name: string; required?: boolean; description?: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** How deep request and response fields are listed; deeper objects show as `object`. */
const MAX_DEPTH = 4;

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

function operationsOf(document: OpenApiDocument): Operation[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ ...item[method], method, path })),
  );
}

const variants = (schema: Schema) => (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;

function typeOf(schema: Schema): string {
  const alternatives = variants(schema);
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' | ');
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => code(JSON.stringify(value))).join(', ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? 'any');
  if (type === 'array' && schema.items) return `${typeOf(schema.items as Schema)}[]`;
  return schema.format ? `${type} (${schema.format})` : type;
}

const BOUNDS: Array<[string, (value: unknown) => string]> = [
  ['minimum', (v) => `≥ ${v}`],
  ['exclusiveMinimum', (v) => `> ${v}`],
  ['maximum', (v) => `≤ ${v}`],
  ['exclusiveMaximum', (v) => `< ${v}`],
  ['minLength', (v) => `length ≥ ${v}`],
  ['maxLength', (v) => `length ≤ ${v}`],
  ['minItems', (v) => `items ≥ ${v}`],
  ['maxItems', (v) => `items ≤ ${v}`],
  ['pattern', (v) => `pattern ${code(String(v))}`],
  ['default', (v) => `default ${code(JSON.stringify(v))}`],
];

function boundsOf(schema: Schema): string {
  const own = BOUNDS.filter(([key]) => schema[key] !== undefined).map(([key, show]) => show(schema[key]));
  const inner =
    variants(schema)
      ?.map(boundsOf)
      .filter((text) => text !== '') ?? [];
  const items = schema.type === 'array' && schema.items ? boundsOf(schema.items as Schema) : '';
  return [...own, ...inner, ...(items ? [`each ${items}`] : [])].join(', ');
}

interface Field {
  name: string;
  schema: Schema;
  required: boolean;
}

/** The object an array of objects or a nullable object holds, if any. */
function objectIn(schema: Schema): Schema | undefined {
  if (schema.properties) return schema;
  if (schema.type === 'array' && schema.items) return objectIn(schema.items as Schema);
  return variants(schema)
    ?.map(objectIn)
    .find((found) => found !== undefined);
}

function fieldsOf(schema: Schema, prefix = '', depth = 1): Field[] {
  const object = objectIn(schema);
  if (!object) return [];
  const required = new Set((object.required ?? []) as string[]);
  const properties = object.properties as Record<string, Schema>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}${property.type === 'array' ? '[]' : ''}`;
    const field = { name: path, schema: property, required: required.has(name) };
    if (depth >= MAX_DEPTH) return [field];
    return [field, ...fieldsOf(property, `${path}.`, depth + 1)];
  });
}

function fieldTable(fields: Field[]) {
  if (fields.length === 0) return [];
  return [
    '| field | type | required | bounds | description |',
    '|---|---|---|---|---|',
    ...fields.map(
      ({ name, schema, required }) =>
        `| ${code(name)} | ${cell(typeOf(schema))} | ${required ? 'yes' : ''} | ${cell(boundsOf(schema))} | ${cell(String(schema.description ?? ''))} |`,
    ),
  ];
}

const AUTH: Record<string, string> = {
  bearer: 'bearer token (`Authorization: Bearer <access token>`)',
  appliance: 'appliance credential (`Authorization: Appliance sak_…`)',
};

function authOf(operation: Operation) {
  const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
  if (schemes.length === 0) return 'none';
  return schemes.map((scheme) => AUTH[scheme] ?? scheme).join(' or ');
}

function parameterLines(operation: Operation) {
  const parameters = operation.parameters ?? [];
  if (parameters.length === 0) return [];
  return [
    '',
    '| parameter | in | type | required | bounds | description |',
    '|---|---|---|---|---|---|',
    ...parameters.map((parameter) => {
      const schema = parameter.schema ?? {};
      const description = parameter.description ?? String(schema.description ?? '');
      return `| ${code(parameter.name)} | ${parameter.in} | ${cell(typeOf(schema))} | ${parameter.required ? 'yes' : ''} | ${cell(boundsOf(schema))} | ${cell(description)} |`;
    }),
  ];
}

function requestLines(operation: Operation) {
  const content = operation.requestBody?.content ?? {};
  return Object.entries(content).flatMap(([type, { schema }]) => {
    if (!schema) return [];
    const fields = fieldsOf(schema);
    const lines = fields.length > 0 ? fieldTable(fields) : [`A ${code(typeOf(schema))} body.`];
    return ['', `**Request body** (${code(type)}):`, '', ...lines];
  });
}

/** The fields under the envelope's `data` (or the whole body when it has none); `meta` is the same everywhere. */
function answerFields(schema: Schema) {
  return fieldsOf(schema).filter(({ name }) => name !== 'meta' && !name.startsWith('meta.'));
}

/** Statuses that share a description are listed together: `400, 401, 404 (the general error envelope)`. */
function errorSummary(failures: Array<[string, { description?: string }]>) {
  const byDescription = new Map<string, string[]>();
  for (const [status, response] of failures) {
    const description = response.description ?? '';
    byDescription.set(description, [...(byDescription.get(description) ?? []), status]);
  }
  return [...byDescription]
    .map(([description, statuses]) => {
      const shown = description === 'Default Response' ? '' : ` (${cell(description)})`;
      return `${statuses.join(', ')}${shown}`;
    })
    .join('; ');
}

function responseLines(operation: Operation) {
  const responses = Object.entries(operation.responses ?? {});
  const success = responses.filter(([status]) => status.startsWith('2'));
  const failures = responses.filter(([status]) => !status.startsWith('2'));
  const lines: string[] = [];
  for (const [status, response] of success) {
    const [type, body] = Object.entries(response.content ?? {})[0] ?? [];
    lines.push(
      '',
      `**${status}**${type ? ` (${code(type)})` : ''}${response.description && response.description !== 'Default Response' ? `: ${cell(response.description)}` : ''}`,
    );
    const fields = body?.schema ? answerFields(body.schema) : [];
    if (fields.length > 0) lines.push('', ...fieldTable(fields));
  }
  if (failures.length > 0) lines.push('', `**Errors**: ${errorSummary(failures)}`);
  return lines;
}

function operationSection(operation: Operation) {
  const title = `### ${operation.method.toUpperCase()} ${code(operation.path)}`;
  const lines = [title, ''];
  if (operation.summary) lines.push(operation.summary.trim());
  if (operation.description) lines.push('', operation.description.trim());
  lines.push('', `Auth: ${authOf(operation)}.`);
  return [
    ...lines,
    ...parameterLines(operation),
    ...requestLines(operation),
    ...responseLines(operation),
    '',
  ];
}

const anchor = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

/** The reference page: a title, how to read it, contents by tag, then every operation. */
export function renderApi(title: string, source: string, document: OpenApiDocument) {
  const operations = operationsOf(document);
  const tags = [...new Set(operations.map((operation) => operation.tags?.[0] ?? 'other'))];
  const info = (document.info ?? {}) as { description?: string; version?: string };
  const lines = [
    `# ${title}`,
    '',
    `Generated by \`npm run docs\` from the OpenAPI document ${source}; do not edit (a test fails when it`,
    'and the code disagree). The same document is browsable at `/docs` on a running process.',
    '',
    `${info.description ?? ''} Version ${info.version ?? ''}, ${operations.length} operations.`,
    '',
    'Field names with `[]` are arrays; `a.b` is field `b` inside `a`. Bounds are inclusive unless',
    'written `<` or `>`. Successful answers list the fields of the envelope (`data`, `pagination`,',
    '`status`, as the area has them); every answer also carries `meta` (`request_id`, `timestamp`).',
    "Error answers use the area's error envelope, with a stable `code` (see [conventions](../http.md)).",
    '',
    '## Contents',
    '',
    ...tags.map(
      (tag) =>
        `- [${tag}](#${anchor(tag)}) (${operations.filter((operation) => (operation.tags?.[0] ?? 'other') === tag).length})`,
    ),
    '',
  ];
  for (const tag of tags) {
    lines.push(`## ${tag}`, '');
    for (const operation of operations.filter((candidate) => (candidate.tags?.[0] ?? 'other') === tag))
      lines.push(...operationSection(operation));
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
