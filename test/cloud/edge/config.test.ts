import { describe, expect, it } from 'vitest';
import { ConfigError, loadEdgeConfig } from '../../../cloud/edge/config.ts';

const GATEWAY = { GATEWAY_URL: 'http://127.0.0.1:8080' };

describe('the edge router’s configuration', () => {
  it('has defaults for everything but the gateway', () => {
    const config = loadEdgeConfig(GATEWAY);
    expect(config).toMatchObject({
      port: 8000,
      host: '127.0.0.1',
      serviceDomain: 'localhost',
      storage: { kind: 'disk', dir: 'data/static' },
      redisUrl: undefined,
      redisKeyPrefix: 'edge:ratelimit:',
      connectTimeoutMs: 2000,
      upstreamTimeoutMs: 30_000,
      logLevel: 'info',
    });
    expect(config.gatewayUrl.href).toBe('http://127.0.0.1:8080/');
    expect(loadEdgeConfig({ ...GATEWAY, DATA_DIR: '/var/edge' }).storage).toEqual({
      kind: 'disk',
      dir: '/var/edge/static',
    });
  });

  it('reads every variable', () => {
    const config = loadEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '0.0.0.0',
      GATEWAY_URL: 'https://gateway.internal:8443',
      SERVICE_DOMAIN: 'Example.COM',
      STATIC_S3_BUCKET: 'static-assets',
      STATIC_S3_ENDPOINT: 'http://127.0.0.1:9000',
      STATIC_S3_REGION: 'eu-west-1',
      STATIC_S3_FORCE_PATH_STYLE: 'true',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      EDGE_REDIS_KEY_PREFIX: 'prod:edge:',
      EDGE_CONNECT_TIMEOUT_MS: '500',
      EDGE_UPSTREAM_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      serviceDomain: 'example.com',
      storage: {
        kind: 's3',
        bucket: 'static-assets',
        endpoint: 'http://127.0.0.1:9000',
        region: 'eu-west-1',
        forcePathStyle: true,
      },
      redisUrl: 'redis://127.0.0.1:6379/2',
      redisKeyPrefix: 'prod:edge:',
      connectTimeoutMs: 500,
      upstreamTimeoutMs: 10_000,
      logLevel: 'warn',
    });
    expect(config.gatewayUrl.origin).toBe('https://gateway.internal:8443');
  });

  it.each([
    [{}, /GATEWAY_URL is required/],
    [{ GATEWAY_URL: 'gateway:8080' }, /GATEWAY_URL must be http\(s\):\/\/host:port/],
    [{ GATEWAY_URL: 'http://gateway' }, /GATEWAY_URL must be/],
    [{ GATEWAY_URL: 'ftp://gateway:21' }, /GATEWAY_URL must be/],
    [{ GATEWAY_URL: 'http://gateway:8080/api' }, /GATEWAY_URL must be/],
    [{ ...GATEWAY, EDGE_PORT: '70000' }, /EDGE_PORT must be a whole number from 0 to 65535, got "70000"/],
    [{ ...GATEWAY, EDGE_PORT: 'http' }, /EDGE_PORT/],
    [{ ...GATEWAY, EDGE_HOST: 'a host' }, /EDGE_HOST/],
    [{ ...GATEWAY, SERVICE_DOMAIN: 'not a domain' }, /SERVICE_DOMAIN must be a host name/],
    [{ ...GATEWAY, SERVICE_DOMAIN: '-bad.com' }, /SERVICE_DOMAIN/],
    [{ ...GATEWAY, STATIC_S3_BUCKET: 'Bad_Bucket' }, /STATIC_S3_BUCKET must be an S3 bucket name/],
    [{ ...GATEWAY, STATIC_S3_BUCKET: 'b-1', STATIC_S3_ENDPOINT: 'minio:9000' }, /STATIC_S3_ENDPOINT/],
    [{ ...GATEWAY, STATIC_S3_BUCKET: 'b-1', STATIC_S3_REGION: 'EU WEST' }, /STATIC_S3_REGION/],
    [
      { ...GATEWAY, STATIC_S3_BUCKET: 'b-1', STATIC_S3_FORCE_PATH_STYLE: 'yes' },
      /STATIC_S3_FORCE_PATH_STYLE/,
    ],
    [
      { ...GATEWAY, REDIS_URL: 'http://user:secret@redis:6379' },
      /REDIS_URL must be a redis:\/\/.*\/\/\*\*\*@redis/,
    ],
    [{ ...GATEWAY, EDGE_REDIS_KEY_PREFIX: 'has space' }, /EDGE_REDIS_KEY_PREFIX/],
    [{ ...GATEWAY, EDGE_CONNECT_TIMEOUT_MS: '0' }, /EDGE_CONNECT_TIMEOUT_MS must be a whole number from 1/],
    [{ ...GATEWAY, EDGE_UPSTREAM_TIMEOUT_MS: '1.5' }, /EDGE_UPSTREAM_TIMEOUT_MS/],
    [{ ...GATEWAY, LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadEdgeConfig(env)).toThrow(ConfigError);
    expect(() => loadEdgeConfig(env)).toThrow(message);
  });

  it('keeps a password in REDIS_URL out of its message', () => {
    expect(() => loadEdgeConfig({ ...GATEWAY, REDIS_URL: 'http://user:secret@redis:6379' })).not.toThrow(
      /secret/,
    );
  });
});
