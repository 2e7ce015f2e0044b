import { describe, expect, it } from 'vitest';
import { tenantOf } from '../../../cloud/edge/tenant.ts';

describe('the tenant of a host', () => {
  it.each([
    ['alpha.example.com', 'alpha'],
    ['alpha.example.com:443', 'alpha'],
    ['bravo-2.EXAMPLE.com', 'bravo-2'],
    ['9.example.com', '9'],
    ['x.alpha.example.com', 'x'],
    [`${'a'.repeat(63)}.example.com`, 'a'.repeat(63)],
  ])('%s is %s', (host, tenant) => {
    expect(tenantOf(host, 'example.com')).toBe(tenant);
  });

  it.each([
    undefined,
    '',
    'example.com',
    'example.com:80',
    '.example.com',
    'Alpha.example.com',
    'al_pha.example.com',
    'al pha.example.com',
    'alpha.example.org',
    'alpha.notexample.com',
    'alpha.example.com.evil.test',
    `${'a'.repeat(64)}.example.com`,
    '127.0.0.1',
    '[::1]:8080',
  ])('%s names no tenant', (host) => {
    expect(tenantOf(host, 'example.com')).toBeUndefined();
  });
});
