import { describe, expect, it } from 'vitest';
import { ConfigError, loadCloudConfig } from '../../../cloud/config.ts';

describe('PLATFORM_SERVICE_URL', () => {
  it('is unset by default: the in-process tenancy adapter', () => {
    expect(loadCloudConfig({}).platformServiceUrl).toBeUndefined();
  });

  it('takes an http or https URL', () => {
    for (const url of ['http://platform.internal:8080', 'https://platform.example.test/base']) {
      expect(loadCloudConfig({ PLATFORM_SERVICE_URL: url }).platformServiceUrl).toBe(url);
    }
  });

  it('refuses anything else with a clear message', () => {
    for (const url of ['ftp://platform', 'platform.internal', 'http//missing-colon']) {
      expect(() => loadCloudConfig({ PLATFORM_SERVICE_URL: url })).toThrow(ConfigError);
    }
    expect(() => loadCloudConfig({ PLATFORM_SERVICE_URL: 'ftp://x' })).toThrow(
      /PLATFORM_SERVICE_URL must be an http/,
    );
  });
});
