import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { type ErrorDetail, InvalidRequestError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { isRole } from '../../shared/roles.ts';
import * as errors from './errors.ts';
import { endpointProblem, redirectUriProblem } from './redirect-uris.ts';
import { checkSamlIdpSettings } from './saml-settings.ts';
import type { NewProvider, ProviderPatch } from './schemas.ts';
import type { SsoStore } from './store.ts';
import { type OidcSettings, protocolOf, type SamlSettings, type SsoProviderRow } from './tables.ts';

/** Roles a provider may hand out on its own: an IdP must never mint administrators. */
export const JIT_ROLES = ['staff', 'manager', 'restaurant_manager', 'finance', 'cockpit_operator'];
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const GOOGLE_ISSUER = 'https://accounts.google.com';

/** Our side of a SAML provider, as its IdP must be told: entity id and assertion consumer URL. */
export const samlEndpoints = (baseUrl: string, providerId: string) => ({
  sp_entity_id: `${baseUrl}/v1/auth/sso/saml/${providerId}/metadata`,
  acs_url: `${baseUrl}/v1/auth/sso/saml/${providerId}/acs`,
});

export const providerSettings = <T extends OidcSettings | SamlSettings>(row: SsoProviderRow) =>
  JSON.parse(row.settings) as T;

function fingerprint(pem: string) {
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return createHash('sha256').update(Buffer.from(body, 'base64')).digest('hex');
}

/** Every problem with a provider's settings at once, field by field. */
function problemsOf(
  row: Pick<SsoProviderRow, 'kind' | 'default_role'>,
  settings: Partial<OidcSettings & SamlSettings>,
  redirectUris: string[],
) {
  const problems: ErrorDetail[] = [];
  const add = (field: string, message: string | undefined) => {
    if (message) problems.push({ field, message });
  };
  for (const [i, uri] of redirectUris.entries()) add(`body.redirect_uris.${i}`, redirectUriProblem(uri));
  if (!JIT_ROLES.includes(row.default_role) || !isRole(row.default_role))
    add('body.default_role', `must be one of ${JIT_ROLES.join(', ')}`);
  if (protocolOf(row.kind) === 'oidc') {
    if (!settings.client_id)
      add('body.oidc', 'is required for an OpenID Connect provider (client_id, client_secret)');
    add('body.oidc.issuer', settings.issuer ? endpointProblem(settings.issuer) : 'is required for this kind');
  } else {
    if (!settings.entry_point) {
      add('body.saml', 'is required for a SAML provider (entry_point, idp_issuer, idp_certificate)');
      return problems;
    }
    add('body.saml.entry_point', endpointProblem(settings.entry_point));
    const fields = { entryPoint: 'entry_point', idpIssuer: 'idp_issuer', idpCertificate: 'idp_certificate' };
    const saml = checkSamlIdpSettings({
      entryPoint: settings.entry_point,
      idpIssuer: settings.idp_issuer ?? '',
      idpCertificate: settings.idp_certificate ?? '',
    });
    for (const p of saml)
      if (p.field !== 'entryPoint') add(`body.saml.${fields[p.field as keyof typeof fields]}`, p.message);
  }
  return problems;
}

/** Per-tenant identity providers, managed by the tenant's administrators. */
export function createProviderAdmin(deps: {
  store: SsoStore;
  clock: Clock;
  newId: IdGenerator;
  isUniqueViolation: (error: unknown) => boolean;
}) {
  const { store, clock, newId } = deps;
  async function requireProvider(tenantId: string, id: string) {
    const row = await store.provider(tenantId, id);
    if (!row) throw errors.providerNotFound();
    return row;
  }

  const view = (row: SsoProviderRow, baseUrl: string) => {
    const common = {
      id: row.id,
      kind: row.kind,
      protocol: protocolOf(row.kind),
      name: row.name,
      enabled: row.enabled === 1,
      redirect_uris: JSON.parse(row.redirect_uris) as string[],
      allowed_domains: JSON.parse(row.allowed_domains) as string[],
      jit_enabled: row.jit_enabled === 1,
      default_role: row.default_role,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
    if (protocolOf(row.kind) === 'oidc') {
      const s = providerSettings<OidcSettings>(row);
      return {
        ...common,
        oidc: {
          issuer: s.issuer,
          client_id: s.client_id,
          scopes: s.scopes,
          client_secret_set: s.client_secret !== '',
        },
      };
    }
    const s = providerSettings<SamlSettings>(row);
    return {
      ...common,
      saml: {
        entry_point: s.entry_point,
        idp_issuer: s.idp_issuer,
        idp_certificate_fingerprint: fingerprint(s.idp_certificate),
        ...samlEndpoints(baseUrl, row.id),
      },
    };
  };

  function check(row: SsoProviderRow) {
    const problems = problemsOf(row, providerSettings(row), JSON.parse(row.redirect_uris) as string[]);
    if (problems.length > 0) throw new InvalidRequestError('The request is invalid', problems);
  }

  async function save(work: () => Promise<unknown>) {
    try {
      await work();
    } catch (error) {
      if (deps.isUniqueViolation(error)) throw errors.nameTaken();
      throw error;
    }
  }

  return {
    view,
    requireProvider,
    async create(tenantId: string, input: NewProvider, baseUrl: string) {
      const at = clock.now().toISOString();
      const settings: OidcSettings | SamlSettings =
        input.kind === 'saml'
          ? {
              entry_point: input.saml?.entry_point ?? '',
              idp_issuer: input.saml?.idp_issuer ?? '',
              idp_certificate: input.saml?.idp_certificate ?? '',
            }
          : {
              issuer: input.oidc?.issuer ?? (input.kind === 'google_workspace' ? GOOGLE_ISSUER : ''),
              client_id: input.oidc?.client_id ?? '',
              client_secret: input.oidc?.client_secret ?? '',
              scopes: [...new Set(['openid', ...(input.oidc?.scopes ?? DEFAULT_SCOPES)])],
            };
      const row: SsoProviderRow = {
        id: newId(),
        tenant_id: tenantId,
        kind: input.kind,
        name: input.name,
        enabled: input.enabled === false ? 0 : 1,
        settings: JSON.stringify(settings),
        redirect_uris: JSON.stringify(input.redirect_uris),
        allowed_domains: JSON.stringify((input.allowed_domains ?? []).map((d) => d.toLowerCase())),
        jit_enabled: input.jit_enabled === false ? 0 : 1,
        default_role: input.default_role ?? 'staff',
        created_at: at,
        updated_at: at,
      };
      check(row);
      await save(() => store.insertProvider(row));
      return view(row, baseUrl);
    },
    async list(tenantId: string, baseUrl: string) {
      return (await store.providers(tenantId)).map((row) => view(row, baseUrl));
    },
    get: async (tenantId: string, id: string, baseUrl: string) =>
      view(await requireProvider(tenantId, id), baseUrl),
    async update(tenantId: string, id: string, patch: ProviderPatch, baseUrl: string) {
      const before = await requireProvider(tenantId, id);
      const settings = {
        ...providerSettings(before),
        ...(protocolOf(before.kind) === 'oidc' ? patch.oidc : patch.saml),
      };
      if ('scopes' in settings && patch.oidc?.scopes)
        settings.scopes = [...new Set(['openid', ...patch.oidc.scopes])];
      const field = protocolOf(before.kind) === 'oidc' ? 'saml' : 'oidc';
      if (patch[field] !== undefined)
        throw new InvalidRequestError('The request is invalid', [
          { field: `body.${field}`, message: `does not apply to a ${before.kind} provider` },
        ]);
      const after: SsoProviderRow = {
        ...before,
        name: patch.name ?? before.name,
        enabled: patch.enabled === undefined ? before.enabled : patch.enabled ? 1 : 0,
        settings: JSON.stringify(settings),
        redirect_uris: patch.redirect_uris ? JSON.stringify(patch.redirect_uris) : before.redirect_uris,
        allowed_domains: patch.allowed_domains
          ? JSON.stringify(patch.allowed_domains.map((d) => d.toLowerCase()))
          : before.allowed_domains,
        jit_enabled: patch.jit_enabled === undefined ? before.jit_enabled : patch.jit_enabled ? 1 : 0,
        default_role: patch.default_role ?? before.default_role,
        updated_at: clock.now().toISOString(),
      };
      check(after);
      const { id: _id, tenant_id: _tenant, created_at: _created, ...changes } = after;
      await save(() => store.updateProvider(tenantId, id, changes));
      return view(after, baseUrl);
    },
    async remove(tenantId: string, id: string) {
      if (!(await store.deleteProvider(tenantId, id))) throw errors.providerNotFound();
    },
  };
}

export type ProviderAdmin = ReturnType<typeof createProviderAdmin>;
