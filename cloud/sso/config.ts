/**
 * Single sign-on settings. Only this file reads the OAUTH_* and SSO_* variables; cloud/config.ts
 * calls it once at start-up.
 */
import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';
import { redirectUriProblem } from './redirect-uris.ts';

/** A platform-wide OpenID Connect provider for `GET /v1/auth/oauth/:provider` (social login). */
export interface SocialProvider {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
}

export interface SsoConfig {
  socialProviders: SocialProvider[];
  /** Where a social sign-in may finish: the client pages that post code and state back. */
  socialRedirectUris: string[];
  /** How long a started sign-in may take before its state is refused. */
  loginTtlSeconds: number;
}

export const SSO_SETTINGS = {
  providers: {
    name: 'OAUTH_PROVIDERS',
    type: 'text',
    default: undefined,
    format:
      'a JSON array of `{ "id", "name", "issuer", "client_id", "client_secret" }` (`id`: lower-case letters, digits, hyphens)',
    secret: true,
    description: 'social login providers (OpenID Connect) for `GET /v1/auth/oauth/:provider`',
  },
  redirectUris: {
    name: 'OAUTH_REDIRECT_URIS',
    type: 'text',
    default: undefined,
    format: 'URLs separated by commas (https, or http on loopback; no query)',
    description: 'the client pages a social sign-in may finish at; required with `OAUTH_PROVIDERS`',
  },
  loginTtlSeconds: {
    name: 'SSO_LOGIN_TTL_SECONDS',
    type: 'integer',
    default: 600,
    min: 60,
    max: 3600,
    description: 'how long (seconds) a started SSO or social sign-in may take',
  },
} as const satisfies Settings;

/** Every variable loadSsoConfig reads. */
export const SSO_VARIABLES = settingNames(SSO_SETTINGS);

const PROVIDER_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

function socialProvider(value: unknown, index: number): SocialProvider {
  const where = `OAUTH_PROVIDERS[${index}]`;
  if (typeof value !== 'object' || value === null) throw new ConfigError(`${where} must be an object`);
  const entry = value as Record<string, unknown>;
  const text = (field: string) => {
    const v = entry[field];
    if (typeof v !== 'string' || v === '')
      throw new ConfigError(`${where}.${field} must be a non-empty string`);
    return v;
  };
  const id = text('id');
  if (!PROVIDER_ID.test(id))
    throw new ConfigError(`${where}.id must be lower-case letters, digits and hyphens, got "${id}"`);
  const issuer = text('issuer');
  if (!URL.canParse(issuer) || !/^https?:\/\//.test(issuer))
    throw new ConfigError(`${where}.issuer must be an http(s) URL, got "${issuer}"`);
  const unknown = Object.keys(entry).filter(
    (k) => !['id', 'name', 'issuer', 'client_id', 'client_secret'].includes(k),
  );
  if (unknown.length > 0) throw new ConfigError(`${where} has unknown fields: ${unknown.join(', ')}`);
  const name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : id;
  return { id, name, issuer, client_id: text('client_id'), client_secret: text('client_secret') };
}

function socialProviders(env: Env): SocialProvider[] {
  const raw = env.OAUTH_PROVIDERS;
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      'OAUTH_PROVIDERS must be a JSON array of {id, name, issuer, client_id, client_secret}',
    );
  }
  if (!Array.isArray(parsed)) throw new ConfigError('OAUTH_PROVIDERS must be a JSON array');
  const providers = parsed.map(socialProvider);
  const ids = providers.map((p) => p.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new ConfigError(`OAUTH_PROVIDERS names "${repeated}" twice`);
  return providers;
}

function redirectUris(env: Env) {
  const uris = (env.OAUTH_REDIRECT_URIS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ConfigError(`OAUTH_REDIRECT_URIS: "${uri}" ${problem}`);
  }
  return uris;
}

export function loadSsoConfig(env: Env): SsoConfig {
  const socialRedirectUris = redirectUris(env);
  const providers = socialProviders(env);
  if (providers.length > 0 && socialRedirectUris.length === 0)
    throw new ConfigError('OAUTH_REDIRECT_URIS must list at least one URI when OAUTH_PROVIDERS is set');
  return {
    socialProviders: providers,
    socialRedirectUris,
    loginTtlSeconds: read(env, SSO_SETTINGS.loginTtlSeconds),
  };
}

export const DEFAULT_SSO_CONFIG: SsoConfig = {
  socialProviders: [],
  socialRedirectUris: [],
  loginTtlSeconds: 600,
};
