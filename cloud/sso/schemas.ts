import { type Static, Type } from '@sinclair/typebox';
import { PROVIDER_KINDS } from './tables.ts';

const Uri = Type.String({ minLength: 1, maxLength: 2000 });
const Domain = Type.String({
  pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$',
  maxLength: 253,
});
const Kind = Type.Union(
  PROVIDER_KINDS.map((k) => Type.Literal(k)),
  {
    description:
      'google_workspace (workspace suite), azure_ad (enterprise directory), okta (enterprise IdP): OpenID Connect; saml: SAML 2.0',
  },
);
const Shell = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'the client shell starting the sign-in, e.g. web, pos, kiosk',
});

const OidcFields = {
  issuer: Uri,
  client_id: Type.String({ minLength: 1, maxLength: 500 }),
  client_secret: Type.String({ minLength: 1, maxLength: 2000, description: 'write-only' }),
  scopes: Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$', maxLength: 100 }), {
    maxItems: 20,
    description: 'default openid email profile; openid is always requested',
  }),
};
const SamlFields = {
  entry_point: Uri,
  idp_issuer: Type.String({ minLength: 1, maxLength: 1000 }),
  idp_certificate: Type.String({
    minLength: 1,
    maxLength: 20_000,
    description: 'the IdP signing certificate, PEM',
  }),
};
const Common = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  enabled: Type.Boolean({ description: 'default true' }),
  redirect_uris: Type.Array(Uri, {
    minItems: 1,
    maxItems: 20,
    description: 'client pages a sign-in may finish at (https, or http on loopback; no query)',
  }),
  allowed_domains: Type.Array(Domain, { maxItems: 50, description: 'e-mail domains allowed; empty: any' }),
  jit_enabled: Type.Boolean({ description: 'create unknown users on first sign-in (default true)' }),
  default_role: Type.String({
    minLength: 1,
    maxLength: 50,
    description: 'role of users created just in time (default staff)',
  }),
};

export const NewProviderSchema = Type.Object(
  {
    kind: Kind,
    name: Common.name,
    enabled: Type.Optional(Common.enabled),
    redirect_uris: Common.redirect_uris,
    allowed_domains: Type.Optional(Common.allowed_domains),
    jit_enabled: Type.Optional(Common.jit_enabled),
    default_role: Type.Optional(Common.default_role),
    oidc: Type.Optional(
      Type.Object(
        {
          issuer: Type.Optional({
            ...OidcFields.issuer,
            description: 'default https://accounts.google.com for google_workspace',
          }),
          client_id: OidcFields.client_id,
          client_secret: OidcFields.client_secret,
          scopes: Type.Optional(OidcFields.scopes),
        },
        { additionalProperties: false, description: 'required for the OpenID Connect kinds' },
      ),
    ),
    saml: Type.Optional(
      Type.Object(SamlFields, { additionalProperties: false, description: 'required for kind saml' }),
    ),
  },
  { additionalProperties: false },
);
export type NewProvider = Static<typeof NewProviderSchema>;

export const ProviderPatchSchema = Type.Object(
  {
    name: Type.Optional(Common.name),
    enabled: Type.Optional(Common.enabled),
    redirect_uris: Type.Optional(Common.redirect_uris),
    allowed_domains: Type.Optional(Common.allowed_domains),
    jit_enabled: Type.Optional(Common.jit_enabled),
    default_role: Type.Optional(Common.default_role),
    oidc: Type.Optional(Type.Partial(Type.Object(OidcFields), { additionalProperties: false })),
    saml: Type.Optional(Type.Partial(Type.Object(SamlFields), { additionalProperties: false })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ProviderPatch = Static<typeof ProviderPatchSchema>;

export const ProviderSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Kind,
  protocol: Type.Union([Type.Literal('oidc'), Type.Literal('saml')]),
  name: Type.String(),
  enabled: Type.Boolean(),
  redirect_uris: Type.Array(Type.String()),
  allowed_domains: Type.Array(Type.String()),
  jit_enabled: Type.Boolean(),
  default_role: Type.String(),
  oidc: Type.Optional(
    Type.Object({
      issuer: Type.String(),
      client_id: Type.String(),
      scopes: Type.Array(Type.String()),
      client_secret_set: Type.Boolean(),
    }),
  ),
  saml: Type.Optional(
    Type.Object({
      entry_point: Type.String(),
      idp_issuer: Type.String(),
      idp_certificate_fingerprint: Type.String({ description: 'SHA-256 of the certificate' }),
      sp_entity_id: Type.String({ description: 'our entity id to register at the IdP' }),
      acs_url: Type.String({ description: 'our assertion consumer service URL to register at the IdP' }),
    }),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ProviderParamsSchema = Type.Object({ provider_id: Type.String({ format: 'uuid' }) });

export const PolicySchema = Type.Object({
  require_sso: Type.Boolean({
    description: 'refuse passwords and social login; the PIN on store terminals stays',
  }),
  bypass_roles: Type.Array(Type.String(), {
    description: 'roles that may still use a password (break-glass)',
  }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const PolicyPatchSchema = Type.Object(
  {
    require_sso: Type.Optional(Type.Boolean()),
    bypass_roles: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProvidersQuerySchema = Type.Object(
  { tenant_slug: Type.String({ minLength: 1, maxLength: 63 }) },
  { additionalProperties: false },
);
export const PublicProvidersSchema = Type.Object({
  tenant_slug: Type.String(),
  sso_required: Type.Boolean(),
  providers: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      kind: Kind,
      protocol: Type.Union([Type.Literal('oidc'), Type.Literal('saml')]),
      name: Type.String(),
    }),
  ),
});

export const InitSchema = Type.Object(
  { provider_id: Type.String({ format: 'uuid' }), shell: Shell, redirect_uri: Uri },
  { additionalProperties: false },
);
export const InitResultSchema = Type.Object({
  authorization_url: Type.String(),
  state: Type.String({ description: 'comes back with the code; the callback needs both' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const CallbackSchema = Type.Object(
  {
    state: Type.String({ minLength: 16, maxLength: 200 }),
    code: Type.String({ minLength: 1, maxLength: 4096 }),
    iss: Type.Optional({
      ...Uri,
      description: 'the iss parameter of the redirect, when the IdP sent one (RFC 9207)',
    }),
    device_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    device_fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const OauthParamsSchema = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' }),
});
export const OauthQuerySchema = Type.Object(
  {
    redirect_uri: Uri,
    tenant_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    shell: Type.Optional(Shell),
  },
  { additionalProperties: false },
);

export const AcsBodySchema = Type.Object({
  SAMLResponse: Type.String({ minLength: 1, maxLength: 1_000_000 }),
  RelayState: Type.String({ minLength: 1, maxLength: 200 }),
});
