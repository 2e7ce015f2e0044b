/** The identity provider kinds: three OpenID Connect identity providers and SAML 2.0. */
export const PROVIDER_KINDS = ['google_workspace', 'azure_ad', 'okta', 'saml'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export type Protocol = 'oidc' | 'saml';

export const protocolOf = (kind: ProviderKind): Protocol => (kind === 'saml' ? 'saml' : 'oidc');

export interface OidcSettings {
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string[];
}

export interface SamlSettings {
  entry_point: string;
  idp_issuer: string;
  idp_certificate: string;
}

export interface SsoProviderRow {
  id: string;
  tenant_id: string;
  kind: ProviderKind;
  name: string;
  enabled: number;
  /** JSON of OidcSettings or SamlSettings, by kind. */
  settings: string;
  /** JSON array: where a sign-in may finish (the client's page that posts code and state back). */
  redirect_uris: string;
  /** JSON array of e-mail domains this provider may sign in; empty: any. */
  allowed_domains: string;
  jit_enabled: number;
  default_role: string;
  created_at: string;
  updated_at: string;
}

/** Who an identity provider says someone is, bound to our account on first sign-in. */
export interface SsoIdentityRow {
  /** A tenant provider's id, or `social:<provider>` for the platform's social login. */
  provider_key: string;
  subject: string;
  user_id: string;
  email: string;
  created_at: string;
  last_login_at: string;
}

/**
 * One sign-in in flight, keyed by its `state`: what we must check when the client returns (PKCE
 * verifier, nonce, the SAML request id) and, for SAML, the one-time code our ACS handed the client.
 */
export interface SsoLoginRow {
  state: string;
  /** A tenant provider's tenant; null for social login, which may name a tenant by slug. */
  tenant_id: string | null;
  tenant_slug: string | null;
  provider_key: string;
  redirect_uri: string;
  shell: string | null;
  code_verifier: string | null;
  nonce: string | null;
  saml_request_id: string | null;
  /** Set by the SAML ACS once the assertion checked out: JSON of the asserted identity. */
  saml_identity: string | null;
  saml_code_hash: string | null;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

export interface SsoPolicyRow {
  tenant_id: string;
  require_sso: number;
  /** JSON array of roles that may still use a password when SSO is required (break-glass). */
  bypass_roles: string;
  updated_at: string;
}

export interface SsoTables {
  sso_providers: SsoProviderRow;
  sso_identities: SsoIdentityRow;
  sso_logins: SsoLoginRow;
  sso_policies: SsoPolicyRow;
}
