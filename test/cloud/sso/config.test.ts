import { describe, expect, it } from 'vitest';
import { CLOUD_VARIABLES, ConfigError, loadCloudConfig } from '../../../cloud/config.ts';

const google = {
  id: 'google',
  name: 'Google',
  issuer: 'https://accounts.google.com',
  client_id: 'c',
  client_secret: 's',
};

describe('single sign-on configuration', () => {
  it('has no social providers by default', () => {
    expect(loadCloudConfig({}).sso).toEqual({
      socialProviders: [],
      socialRedirectUris: [],
      loginTtlSeconds: 600,
    });
    expect(CLOUD_VARIABLES).toEqual(
      expect.arrayContaining(['OAUTH_PROVIDERS', 'OAUTH_REDIRECT_URIS', 'SSO_LOGIN_TTL_SECONDS']),
    );
  });

  it('reads social providers and where their sign-ins may finish', () => {
    const sso = loadCloudConfig({
      OAUTH_PROVIDERS: JSON.stringify([google]),
      OAUTH_REDIRECT_URIS: 'https://app.example.test/sso/done, http://localhost:5173/sso/done',
    }).sso;
    expect(sso.socialProviders).toEqual([google]);
    expect(sso.socialRedirectUris).toEqual([
      'https://app.example.test/sso/done',
      'http://localhost:5173/sso/done',
    ]);
  });

  it('stops start-up with a message naming the bad value', () => {
    const load = (env: Record<string, string>) => () => loadCloudConfig(env);
    expect(load({ OAUTH_PROVIDERS: 'not json' })).toThrow(ConfigError);
    expect(load({ OAUTH_PROVIDERS: JSON.stringify([google]) })).toThrow(/OAUTH_REDIRECT_URIS must list/);
    expect(
      load({
        OAUTH_PROVIDERS: JSON.stringify([{ ...google, id: 'Google!' }]),
        OAUTH_REDIRECT_URIS: 'https://a.test/cb',
      }),
    ).toThrow(/OAUTH_PROVIDERS\[0\]\.id/);
    expect(
      load({
        OAUTH_PROVIDERS: JSON.stringify([{ ...google, extra: 1 }]),
        OAUTH_REDIRECT_URIS: 'https://a.test/cb',
      }),
    ).toThrow(/unknown fields: extra/);
    expect(
      load({ OAUTH_PROVIDERS: JSON.stringify([google, google]), OAUTH_REDIRECT_URIS: 'https://a.test/cb' }),
    ).toThrow(/twice/);
    expect(load({ OAUTH_REDIRECT_URIS: 'http://app.example.test/cb' })).toThrow(/must use https/);
    expect(load({ SSO_LOGIN_TTL_SECONDS: '5' })).toThrow(/SSO_LOGIN_TTL_SECONDS/);
  });
});
