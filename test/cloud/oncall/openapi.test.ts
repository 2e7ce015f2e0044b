import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OncallCloud, oncallCloud } from './oncall-cloud.ts';

const ROUTES: Array<[string, string, string[]]> = [
  ['/api/v1/oncall/schedule/{team}', 'get', ['200', '400', '401', '403', '404']],
  ['/api/v1/oncall/schedules', 'post', ['201', '400', '401', '403', '409']],
  ['/api/v1/oncall/schedules', 'get', ['200', '400', '401', '403']],
  ['/api/v1/oncall/schedules/{schedule_id}', 'get', ['200', '400', '401', '403', '404']],
  ['/api/v1/oncall/schedules/{schedule_id}', 'patch', ['200', '400', '401', '403', '404', '409']],
  ['/api/v1/oncall/schedules/{schedule_id}', 'delete', ['204', '400', '401', '403', '404']],
  ['/api/v1/oncall/schedules/{schedule_id}/overrides', 'post', ['200', '201', '400', '401', '403', '404']],
  ['/api/v1/oncall/schedules/{schedule_id}/overrides', 'get', ['200', '400', '401', '403', '404']],
  [
    '/api/v1/oncall/schedules/{schedule_id}/overrides/{override_id}',
    'get',
    ['200', '400', '401', '403', '404'],
  ],
  [
    '/api/v1/oncall/schedules/{schedule_id}/overrides/{override_id}',
    'delete',
    ['204', '400', '401', '403', '404'],
  ],
];

describe('on-call in the OpenAPI document', () => {
  let c: OncallCloud;
  beforeAll(async () => {
    c = await oncallCloud('sqlite');
  });
  afterAll(() => c.cloud.close());

  it('describes every on-call route with its responses', async () => {
    const response = await c.cloud.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    const paths = document.paths as Record<
      string,
      Record<string, { summary?: string; tags?: string[]; responses?: Record<string, unknown> }>
    >;
    const ours = Object.keys(paths).filter((path) => path.startsWith('/api/v1/oncall'));
    expect(ours.sort()).toEqual([...new Set(ROUTES.map(([path]) => path))].sort());
    for (const [path, method, statuses] of ROUTES) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toMatchObject({ summary: expect.any(String), tags: ['oncall'] });
      expect(Object.keys(operation?.responses ?? {}).sort(), `${method} ${path}`).toEqual(statuses);
    }
  });

  it('shows the spec’s on-call fields in the schedule answer', async () => {
    const document = (await c.cloud.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ok = document.paths['/api/v1/oncall/schedule/{team}'].get.responses['200'];
    const schema = JSON.stringify(ok);
    for (const field of ['team', 'current', 'primary', 'secondary', 'next_rotation', 'email', 'name']) {
      expect(schema).toContain(`"${field}"`);
    }
    expect(schema).not.toContain('push_token');
  });
});
