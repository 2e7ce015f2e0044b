import { connect } from 'node:net';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useErrorArea } from '../../../shared/http/areas.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { createErrorHandler } from '../../../shared/http/error-handler.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';
import { jsonTextProblem, MAX_JSON_DEPTH, unboundedNumbers } from '../../../shared/http/validation.ts';

const conventions = { title: 'test', version: '0', description: 'test' };

async function buildApp() {
  const app = Fastify(serverOptions(false));
  await app.register(conventionsPlugin, conventions);
  app.post(
    '/orders/:id',
    {
      bodyLimit: 64 * 1024,
      schema: {
        params: Type.Object({ id: Type.String({ maxLength: 300 }) }),
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
          ids: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 9 }))),
          either: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 5 }), Type.Literal('all')])),
          rush: Type.Optional(Type.Boolean()),
        }),
        body: Type.Object(
          {
            quantity: Type.Integer({ minimum: 1, maximum: 99 }),
            price: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
            paid: Type.Optional(Type.Boolean()),
            note: Type.Optional(Type.Unknown()),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({ body: request.body, query: request.query }),
  );
  await app.register(
    async (billing) => {
      useErrorArea(billing, 'billing', createErrorHandler('billing'));
      billing.get('/plans/:id', async () => ({}));
    },
    { prefix: '/v1/billing' },
  );
  await app.register(
    async (pnl) => {
      useErrorArea(pnl, 'pnl', createErrorHandler('pnl'));
      pnl.get('/reports/:id', async () => ({}));
    },
    { prefix: '/api/v1/pnl' },
  );
  return app;
}

/** One raw HTTP exchange: what a hostile client can send that no HTTP library would. */
function rawExchange(port: number, request: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      if (!status) reject(new Error(`no answer: ${received.slice(0, 200)}`));
      else resolve({ status, head, body });
    });
    socket.write(request);
  });
}

describe('one rule for numbers and types', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp();
  });
  afterAll(() => app.close());

  const post = (body: unknown, query = '') =>
    app.inject({
      method: 'POST',
      url: `/orders/a1${query}`,
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const detailOf = (response: {
    json(): { error: { details: Array<{ field: string; message: string }> } };
  }) => response.json().error.details;

  it('takes JSON numbers and booleans as they are', async () => {
    const response = await post({ quantity: 2, price: 3.5, paid: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().body).toEqual({ quantity: 2, price: 3.5, paid: true });
  });

  it.each([
    ['a number written as a string', { quantity: '2' }, 'body.quantity'],
    ['the string Infinity', { quantity: 'Infinity' }, 'body.quantity'],
    ['the string NaN', { quantity: 1, price: 'NaN' }, 'body.price'],
    ['a boolean written as a string', { quantity: 1, paid: 'true' }, 'body.paid'],
    ['a boolean where a number belongs', { quantity: true }, 'body.quantity'],
    ['null where a number belongs', { quantity: null }, 'body.quantity'],
    ['an array holding the number', { quantity: [2] }, 'body.quantity'],
  ])('refuses %s in a body: validated, never coerced', async (_name, body, field) => {
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    expect(detailOf(response).map((detail: { field: string }) => detail.field)).toContain(field);
  });

  it('refuses a JSON number that overflows to Infinity (1e400), anywhere it is a number', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/orders/a1',
      headers: { 'content-type': 'application/json' },
      payload: '{"quantity": 1e400}',
    });
    expect(response.statusCode).toBe(400);
    expect(detailOf(response)[0]?.field).toBe('body.quantity');
  });

  it('parses query numbers from plain decimals only, then checks their range', async () => {
    expect((await post({ quantity: 1 }, '?limit=20&ids=1&ids=2&either=3&rush=true')).json().query).toEqual({
      limit: 20,
      ids: [1, 2],
      either: 3,
      rush: true,
    });
    for (const text of [
      '1e400',
      'Infinity',
      '-Infinity',
      'NaN',
      '0x10',
      '%2012',
      '1_0',
      '',
      '99999999999999999999999',
    ]) {
      const response = await post({ quantity: 1 }, `?limit=${text}`);
      expect(response.statusCode, `limit=${text}`).toBe(400);
      expect(detailOf(response)[0]?.field).toBe('querystring.limit');
    }
    expect((await post({ quantity: 1 }, '?ids=1&ids=1e400')).statusCode).toBe(400);
    expect((await post({ quantity: 1 }, '?either=Infinity')).statusCode).toBe(400);
    expect((await post({ quantity: 1 }, '?limit=201')).json().error.details).toEqual([
      { field: 'querystring.limit', message: 'must be <= 200' },
    ]);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with a 400, however deep`, async () => {
    const nested = (depth: number) =>
      `{"quantity":1,"note":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const atLimit = await app.inject({
      method: 'POST',
      url: '/orders/a1',
      headers: { 'content-type': 'application/json' },
      payload: nested(MAX_JSON_DEPTH),
    });
    expect(atLimit.statusCode).toBe(200);
    for (const depth of [MAX_JSON_DEPTH + 1, 5000, 30_000]) {
      const response = await app.inject({
        method: 'POST',
        url: '/orders/a1',
        headers: { 'content-type': 'application/json' },
        payload: nested(depth),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toContain('nested deeper');
    }
  });

  it('refuses U+0000 in any string of a body, query or path (PostgreSQL cannot store it)', async () => {
    const body = await app.inject({
      method: 'POST',
      url: '/orders/a1',
      headers: { 'content-type': 'application/json' },
      payload: '{"quantity":1,"note":{"deep":["x\\u0000y"]}}',
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().error.message).toContain('U+0000');
    const query = await post({ quantity: 1 }, '?either=%00');
    expect(detailOf(query)).toContainEqual({
      field: 'querystring.either',
      message: 'must not contain the character U+0000',
    });
    const path = await app.inject({ method: 'POST', url: '/orders/a%00b', payload: { quantity: 1 } });
    expect(detailOf(path)).toContainEqual({
      field: 'params.id',
      message: 'must not contain the character U+0000',
    });
  });

  it('still refuses prototype poisoning in a body', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/orders/a1',
      headers: { 'content-type': 'application/json' },
      payload: '{"quantity":1,"note":{"__proto__":{"admin":true}}}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('INVALID_REQUEST');
  });

  it('answers a body over the route limit 413 in the envelope', async () => {
    const response = await post({ quantity: 1, note: 'x'.repeat(65 * 1024) });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

/** The scan's reference: the parsed value's nesting, and whether any of its strings holds U+0000. */
function parsedFacts(value: unknown, depth = 0): { depth: number; nul: boolean } {
  if (typeof value === 'string') return { depth, nul: value.includes('\u0000') };
  if (typeof value !== 'object' || value === null) return { depth, nul: false };
  let deepest = depth + 1;
  let nul = false;
  for (const [key, item] of Object.entries(value)) {
    const inner = parsedFacts(item, depth + 1);
    deepest = Math.max(deepest, inner.depth);
    nul ||= inner.nul || (!Array.isArray(value) && key.includes('\u0000'));
  }
  return { depth: deepest, nul };
}

describe('the scan of a JSON text', () => {
  it('agrees with parsing on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        const facts = parsedFacts(value);
        const found = jsonTextProblem(JSON.stringify(value), max);
        if (!facts.nul && facts.depth <= max) return found === undefined;
        if (facts.nul && facts.depth <= max) return found === 'nul';
        if (!facts.nul) return found === 'too deep';
        return found !== undefined;
      }),
      { numRuns: 3000, seed: 22 },
    );
  });

  it('counts only brackets outside strings, escapes included', () => {
    expect(jsonTextProblem('[[["]]]]]]]]"]]]', 3)).toBeUndefined();
    expect(jsonTextProblem('["\\"[[[[[["]', 1)).toBeUndefined();
    expect(jsonTextProblem('[[[[]]]]', 3)).toBe('too deep');
    expect(jsonTextProblem('{"a":{"b":[1,{"c":2}]}}', 4)).toBeUndefined();
    expect(jsonTextProblem('{"a":{"b":[1,{"c":2}]}}', 3)).toBe('too deep');
  });

  it('finds an escaped U+0000 in a string, and nothing that only looks like one', () => {
    expect(jsonTextProblem('{"a":"x\\u0000"}', 5)).toBe('nul');
    expect(jsonTextProblem('{"a\\u0000":1}', 5)).toBe('nul');
    expect(jsonTextProblem('{"a":"\\\\u0000"}', 5)).toBeUndefined();
    expect(jsonTextProblem('{"a":"\\u00001"}', 5)).toBe('nul');
    expect(jsonTextProblem('{"a":"u0000"}', 5)).toBeUndefined();
  });
});

describe('every number a route accepts is bounded', () => {
  it('finds the numbers without a finite range, wherever they sit in a schema', () => {
    const schema = Type.Object({
      ok: Type.Integer({ minimum: 0, maximum: 10 }),
      exclusive: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
      choice: Type.Literal(3),
      open: Type.Integer({ minimum: 0 }),
      nested: Type.Array(Type.Object({ price: Type.Number({ maximum: 5 }) })),
      map: Type.Record(Type.String(), Type.Number()),
      either: Type.Union([Type.Null(), Type.Integer({ minimum: 0, maximum: Number.MAX_VALUE })]),
    });
    expect(unboundedNumbers(schema)).toEqual([
      '/open',
      '/nested/items/price',
      '/map/^(.*)$',
      '/either/anyOf/1',
    ]);
  });

  it('will not start a route that forgets a bound, and says which field', async () => {
    const app = Fastify(serverOptions(false));
    await app.register(conventionsPlugin, conventions);
    expect(() =>
      app.post(
        '/things',
        { schema: { body: Type.Object({ items: Type.Array(Type.Object({ qty: Type.Integer() })) }) } },
        async () => ({}),
      ),
    ).toThrow(
      'POST /things: every number a request carries needs a finite minimum and maximum; missing on body.items.items.qty',
    );
    await app.close();
  });
});

describe('errors raised before a route, in the area’s envelope', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = await buildApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  const requestId = (head: string) => /\r\nx-request-id: ([^\r]+)/i.exec(head)?.[1];

  it('a path segment longer than the router takes: 414, per area', async () => {
    const long = 'a'.repeat(300);
    const general = await app.inject({ url: `/orders/${long}`, method: 'POST' });
    expect(general.statusCode).toBe(414);
    expect(general.json()).toEqual({
      error: { code: 'URI_TOO_LONG', message: expect.any(String), details: [] },
      meta: { request_id: general.headers['x-request-id'] },
    });
    const billing = await app.inject({ url: `/v1/billing/plans/${long}` });
    expect(billing.statusCode).toBe(414);
    expect(billing.json()).toEqual({ error: 'uri_too_long', message: expect.any(String) });
    const pnl = await app.inject({ url: `/api/v1/pnl/reports/${long}` });
    expect(pnl.json()).toEqual({ detail: expect.stringContaining('longer than') });
  });

  it('a malformed percent-encoding: 400 in the envelope', async () => {
    const response = await app.inject({ url: '/v1/billing/plans/%E0%A4%A' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('a path no route serves: 404 in the area’s form', async () => {
    expect((await app.inject({ url: '/v1/billing/nothing' })).json()).toEqual({
      error: 'not_found',
      message: 'No route for GET /v1/billing/nothing',
    });
    expect((await app.inject({ url: '/api/v1/pnl/nothing' })).json()).toEqual({
      detail: 'No route for GET /api/v1/pnl/nothing',
    });
    expect((await app.inject({ url: '/v1/billingx' })).json().error.code).toBe('NOT_FOUND');
  });

  it('a URL over 16 KiB: 414 from the HTTP parser, in the URL’s area, with a request id', async () => {
    const general = await rawExchange(
      port,
      `GET /orders/${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(general.status).toBe(414);
    const body = JSON.parse(general.body);
    expect(body.error.code).toBe('URI_TOO_LONG');
    expect(body.meta.request_id).toBe(requestId(general.head));
    const billing = await rawExchange(
      port,
      `GET /v1/billing/plans?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(billing.status).toBe(414);
    expect(JSON.parse(billing.body)).toEqual({ error: 'uri_too_long', message: 'The URL is too long' });
  });

  it('headers over 16 KiB: 431 in the URL’s area', async () => {
    const headers = `X-Big: ${'b'.repeat(17 * 1024)}\r\n`;
    const pnl = await rawExchange(port, `GET /api/v1/pnl/reports/1 HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
    expect(pnl.status).toBe(431);
    expect(JSON.parse(pnl.body)).toEqual({ detail: 'The request line and headers are too large' });
    const general = await rawExchange(port, `GET /orders/1 HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
    expect(general.status).toBe(431);
    expect(JSON.parse(general.body).error.code).toBe('HEADERS_TOO_LARGE');
  });

  it('bytes that are not HTTP: 400 in the general envelope', async () => {
    const response = await rawExchange(port, 'HELLO\x00\x01 there\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('INVALID_REQUEST');
  });
});
