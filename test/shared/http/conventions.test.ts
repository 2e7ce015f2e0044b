import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useErrorArea } from '../../../shared/http/areas.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { Envelope, envelope, pnlSuccess } from '../../../shared/http/envelope.ts';
import { createErrorHandler } from '../../../shared/http/error-handler.ts';
import { ConflictError } from '../../../shared/http/errors.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';

describe('shared HTTP conventions', () => {
  let app: FastifyInstance;
  let databaseUp = true;

  beforeEach(async () => {
    app = Fastify(serverOptions(false));
    await app.register(conventionsPlugin, {
      title: 'test',
      version: '0',
      description: 'test',
      healthChecks: {
        database: async () => {
          if (!databaseUp) throw new Error('connection refused');
        },
      },
    });
    app.post(
      '/things/:id',
      {
        schema: {
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          body: Type.Object(
            { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0, maximum: 1000 }) },
            { additionalProperties: false },
          ),
          response: { 200: Envelope(Type.Object({ name: Type.String() })) },
        },
      },
      async (request) =>
        envelope(request.id, { name: (request.body as { name: string }).name, secret: 'hidden' }),
    );
    app.get('/boom', async () => {
      throw new Error('database password is hunter2');
    });
    app.get('/conflict', async () => {
      throw new ConflictError('Already there', 'ALREADY_THERE', [
        { field: 'body.name', message: 'is taken' },
      ]);
    });
    // Areas with their own error forms opt in when they register, as billing and P&L will.
    for (const format of ['billing', 'pnl'] as const) {
      await app.register(
        async (area) => {
          useErrorArea(area, format, createErrorHandler(format));
          area.get('/ok', async () => pnlSuccess({ revenue: 1 }));
          area.get('/fail', async () => {
            throw new ConflictError('Plan already active', 'plan_active');
          });
          area.get(
            '/bad',
            { schema: { querystring: Type.Object({ n: Type.Integer({ minimum: 0, maximum: 9 }) }) } },
            async () => ({}),
          );
        },
        { prefix: `/${format}` },
      );
    }
    await app.ready();
  });
  afterEach(() => app.close());

  it('answers with a request id, keeping a sane incoming one and replacing anything else', async () => {
    const fresh = await app.inject({ url: '/health' });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.json().meta.request_id).toBe(fresh.headers['x-request-id']);
    const kept = await app.inject({ url: '/health', headers: { 'x-request-id': 'pos-7:abc.123' } });
    expect(kept.headers['x-request-id']).toBe('pos-7:abc.123');
    expect(kept.json().meta.request_id).toBe('pos-7:abc.123');
    const hostile = await app.inject({ url: '/health', headers: { 'x-request-id': 'a b\r\nSet-Cookie: x' } });
    expect(hostile.headers['x-request-id']).not.toContain('Set-Cookie');
  });

  it('wraps success in {data, meta} and drops fields the response schema does not list', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/things/01900000-0000-7000-8000-000000000000',
      payload: { name: 'a', count: 1 },
    });
    expect(response.json()).toEqual({
      data: { name: 'a' },
      meta: { request_id: expect.any(String), timestamp: expect.any(String) },
    });
  });

  it('maps validation failures to INVALID_REQUEST with one detail per field, across params and body', async () => {
    const body = await app.inject({
      method: 'POST',
      url: '/things/01900000-0000-7000-8000-000000000000',
      payload: { count: -1, extra: 1 },
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().error.code).toBe('INVALID_REQUEST');
    expect(body.json().error.details).toEqual(
      expect.arrayContaining([
        { field: 'body.name', message: 'is required' },
        { field: 'body.extra', message: 'is not an accepted field' },
        { field: 'body.count', message: 'must be >= 0' },
      ]),
    );
    const params = await app.inject({
      method: 'POST',
      url: '/things/nope',
      payload: { name: 'a', count: 1 },
    });
    expect(params.json().error.details).toEqual([
      { field: 'params.id', message: 'must match format "uuid"' },
    ]);
    const json = await app.inject({
      method: 'POST',
      url: '/things/01900000-0000-7000-8000-000000000000',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error.code).toBe('INVALID_REQUEST');
  });

  it('renders AppErrors with their status, code and details', async () => {
    const response = await app.inject({ url: '/conflict' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      error: {
        code: 'ALREADY_THERE',
        message: 'Already there',
        details: [{ field: 'body.name', message: 'is taken' }],
      },
      meta: { request_id: response.headers['x-request-id'] },
    });
  });

  it('renders the billing and P&L areas in their own forms', async () => {
    expect((await app.inject({ url: '/billing/fail' })).json()).toEqual({
      error: 'plan_active',
      message: 'Plan already active',
    });
    expect((await app.inject({ url: '/pnl/ok' })).json()).toEqual({ success: true, data: { revenue: 1 } });
    expect((await app.inject({ url: '/pnl/fail' })).json()).toEqual({ detail: 'Plan already active' });
    const bad = await app.inject({ url: '/pnl/bad?n=x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      detail: [{ field: 'querystring.n', message: 'must be a finite number written in decimal' }],
    });
  });

  it('answers unexpected errors with a 500 that says nothing internal', async () => {
    const response = await app.inject({ url: '/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred',
      details: [],
    });
    expect(response.body).not.toContain('hunter2');
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const response = await app.inject({ url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('NOT_FOUND');
  });

  it('reports health, and 503 when a dependency fails', async () => {
    expect((await app.inject({ url: '/health' })).json().data).toEqual({
      status: 'ok',
      checks: { database: 'ok' },
    });
    databaseUp = false;
    const down = await app.inject({ url: '/health' });
    expect(down.statusCode).toBe(503);
    expect(down.json().data).toEqual({
      status: 'degraded',
      checks: { database: 'failed: connection refused' },
    });
  });

  it('counts requests and latencies by route pattern in Prometheus format', async () => {
    await app.inject({
      method: 'POST',
      url: '/things/01900000-0000-7000-8000-000000000000',
      payload: { name: 'a', count: 1 },
    });
    await app.inject({ url: '/nowhere' });
    const metrics = (await app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain(
      'http_request_duration_seconds_count{method="POST",route="/things/:id",status_code="200"} 1',
    );
    expect(metrics).toContain('route="unmatched",status_code="404"');
    expect(metrics).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/things\/:id"/,
    );
  });

  it('publishes the OpenAPI document and browsable docs', async () => {
    const document = (await app.inject({ url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/things/{id}');
    const docs = await app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});
