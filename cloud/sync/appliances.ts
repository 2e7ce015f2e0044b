/**
 * Appliance credentials: each store's appliance authenticates as itself with a credential issued
 * at provisioning (`sak_<id>.<secret>`, shown once), checked on every request so revoking one
 * takes effect at once. Only a digest of the secret is kept.
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { Scope, SyncStore } from './store.ts';
import type { SyncApplianceRow } from './tables.ts';

export interface ApplianceIdentity extends Scope {
  applianceId: string;
}

const CREDENTIAL_PREFIX = 'sak_';

// The secret is random and long, so a SHA-256 digest is enough to keep (a slow hash would only
// slow every push down).
const digestSecret = (secret: string) => createHash('sha256').update(secret).digest('base64url');

export const applianceUnauthorized = () =>
  new AppError(401, 'APPLIANCE_UNAUTHORIZED', 'A valid appliance credential is required', {
    headers: { 'www-authenticate': 'Appliance' },
  });

export function createApplianceCredentials(deps: {
  queries: SyncStore;
  db: Db;
  newId: IdGenerator;
  now(): string;
  ensureLocation(scope: Scope): Promise<void>;
}) {
  const { queries, db, now, ensureLocation } = deps;
  return {
    /**
     * Issues a credential for one store's appliance; the secret is shown once. An appliance
     * enrolled in the device registry gets its registry id (`id`), so sync, the fleet link and
     * the registry name it alike; enrolling again gives it a new secret.
     */
    async provisionAppliance(
      tenantId: string,
      input: { location_id: string; name?: string | undefined; id?: string | undefined },
    ) {
      const scope = { tenantId, locationId: input.location_id };
      await ensureLocation(scope);
      const existing = input.id ? await queries.appliance(db, input.id) : undefined;
      if (existing && existing.tenant_id !== tenantId)
        throw new NotFoundError('Appliance', 'APPLIANCE_NOT_FOUND');
      const id = input.id ?? deps.newId();
      const secret = randomBytes(32).toString('base64url');
      const row = {
        id,
        tenant_id: tenantId,
        location_id: input.location_id,
        name: input.name ?? 'appliance',
        secret_digest: digestSecret(secret),
        status: 'active' as const,
        created_at: now(),
        revoked_at: null,
      };
      if (existing) await queries.reissueAppliance(db, { ...row, created_at: existing.created_at });
      else await queries.insertAppliance(db, row);
      return { ...publicAppliance(row), credential: `${CREDENTIAL_PREFIX}${id}.${secret}` };
    },

    async listAppliances(tenantId: string, locationId?: string) {
      return (await queries.appliances(db, tenantId, locationId)).map(publicAppliance);
    },

    async revokeAppliance(tenantId: string, applianceId: string) {
      const row = await queries.appliance(db, applianceId);
      if (!row || row.tenant_id !== tenantId) throw new NotFoundError('Appliance', 'APPLIANCE_NOT_FOUND');
      await queries.revokeAppliances(db, { tenantId, locationId: row.location_id }, now(), applianceId);
    },

    /** The appliance a credential belongs to, or undefined; checked on every request, so revoking is immediate. */
    async authenticate(credential: string): Promise<ApplianceIdentity | undefined> {
      if (!credential.startsWith(CREDENTIAL_PREFIX)) return undefined;
      const [id, secret] = credential.slice(CREDENTIAL_PREFIX.length).split('.');
      if (!id || !secret || id.length > 64) return undefined;
      const row = await queries.appliance(db, id);
      if (row?.status !== 'active') return undefined;
      const expected = Buffer.from(row.secret_digest);
      const actual = Buffer.from(digestSecret(secret));
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
      return { applianceId: row.id, tenantId: row.tenant_id, locationId: row.location_id };
    },
  };
}

function publicAppliance(row: SyncApplianceRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    location_id: row.location_id,
    name: row.name,
    status: row.status,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}
