import { describe, expect, it } from 'vitest';
import { buildApplianceApp } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';

describe('appliance process', () => {
  it('serves the shared conventions: health, request ids, 404 envelope, docs, metrics', async () => {
    const app = await buildApplianceApp({ ...loadApplianceConfig({}), logLevel: 'silent' });
    const health = await app.inject({ url: '/health', headers: { 'x-request-id': 'kds-2' } });
    expect(health.json()).toMatchObject({ data: { status: 'ok' }, meta: { request_id: 'kds-2' } });
    const missing = await app.inject({ url: '/v1/commerce/nothing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    expect((await app.inject({ url: '/openapi.json' })).json().info.title).toBe('Edge appliance local API');
    expect((await app.inject({ url: '/metrics' })).body).toContain(
      'appliance_http_request_duration_seconds_count',
    );
    await app.close();
  });

  it('refuses bad configuration, naming the variable', () => {
    expect(() => loadApplianceConfig({ APPLIANCE_PORT: '99999' })).toThrow(/APPLIANCE_PORT/);
    expect(() => loadApplianceConfig({ LOCATION_ID: 'store-1' })).toThrow(/LOCATION_ID must be a UUID/);
    expect(() => loadApplianceConfig({ CLOUD_URL: 'ftp://x' })).toThrow(/CLOUD_URL/);
    expect(loadApplianceConfig({})).toMatchObject({
      port: 8090,
      host: '0.0.0.0',
      dataDir: './data/appliance',
    });
  });
});
