/**
 * The page of docs/limits/ for one OpenAPI document: every operation's numeric request values and
 * their ranges, lists' `limit` first. Written from the document the app publishes, and compared
 * with the committed page by the fuzz tests (`npx vitest run test/e2e/fuzz -u` rewrites it).
 */
type Schema = Record<string, unknown>;

interface Row {
  operation: string;
  field: string;
  range: string;
  fallback: string;
}

const bound = (schema: Schema, inclusive: string, exclusive: string, symbol: string) =>
  schema[inclusive] !== undefined
    ? `${schema[inclusive]}`
    : schema[exclusive] !== undefined
      ? `${symbol}${schema[exclusive]}`
      : '?';

const isNumeric = (schema: Schema) => schema.type === 'integer' || schema.type === 'number';

/** Numeric fields of a request schema, with their paths (`items[]` for array items). */
function numericFields(schema: unknown, path: string): Array<[string, Schema]> {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Schema;
  if (isNumeric(node) && !('const' in node) && !('enum' in node)) return [[path, node]];
  const found: Array<[string, Schema]> = [];
  for (const option of [...((node.anyOf ?? node.oneOf ?? []) as Schema[])])
    found.push(...numericFields(option, path));
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Schema>))
    found.push(...numericFields(property, path ? `${path}.${name}` : name));
  for (const property of Object.values((node.patternProperties ?? {}) as Record<string, Schema>))
    found.push(...numericFields(property, `${path}.<key>`));
  if (node.items) found.push(...numericFields(node.items, `${path}[]`));
  return found;
}

function rowsOf(document: { paths: Record<string, Record<string, unknown>> }): Row[] {
  const rows: Row[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = raw as {
        parameters?: Array<{ name: string; in: string; schema: Schema }>;
        requestBody?: { content: Record<string, { schema: Schema }> };
      };
      const operation = `\`${method.toUpperCase()} ${path}\``;
      const fields = [
        ...(op.parameters ?? []).flatMap((p) =>
          numericFields(p.schema, `${p.in === 'query' ? '?' : ''}${p.name}`),
        ),
        ...Object.values(op.requestBody?.content ?? {}).flatMap((c) => numericFields(c.schema, 'body')),
      ];
      for (const [field, schema] of fields) {
        const range = `${bound(schema, 'minimum', 'exclusiveMinimum', '>')} – ${bound(schema, 'maximum', 'exclusiveMaximum', '<')}`;
        rows.push({
          operation,
          field: `\`${field.replace(/^body\./, '')}\``,
          range,
          fallback: schema.default === undefined ? '' : `${schema.default}`,
        });
      }
    }
  }
  return rows;
}

export function limitsPage(
  title: string,
  document: { paths: Record<string, Record<string, unknown>> },
): string {
  const rows = rowsOf(document);
  const isPaging = (row: Row) => /^`\?(limit|page)`$/.test(row.field);
  const table = (selected: Row[], header: string) =>
    [
      header,
      '|---|---|---|---|',
      ...selected.map((r) => `| ${r.operation} | ${r.field} | ${r.range} | ${r.fallback} |`),
    ].join('\n');
  return `${[
    `# ${title}: numeric request values and their ranges`,
    '',
    'Generated from the OpenAPI document the process publishes (`GET /openapi.json`) by the fuzz tests; do not edit.',
    'A value outside its range, a number written as a string in a JSON body, or a query value that is not a plain finite decimal answers 400.',
    '',
    '## Lists',
    '',
    table(rows.filter(isPaging), '| operation | parameter | range | default |'),
    '',
    '## Every other number',
    '',
    table(
      rows.filter((row) => !isPaging(row)),
      '| operation | field | range | default |',
    ),
  ].join('\n')}\n`;
}
