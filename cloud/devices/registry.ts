/**
 * The device registry: registration with a one-time enrolment token, listing, tokens regenerated,
 * devices revoked for good, and presence as the fleet link and the stores' brokers see it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DeviceType } from '../../shared/mqtt/topics.ts';
import type { Db } from '../db/index.ts';
import { type DeviceContext, nowIso, requireDevice } from './context.ts';
import { deviceRevoked, locationMissing, serialNumberTaken } from './errors.ts';
import { revokedNotice } from './revocation-notices.ts';
import {
  type DeviceFilter,
  devices,
  insertDevice,
  liveCertificates,
  recordSighting,
  revokeCertificates,
  updateDevice,
} from './store.ts';
import { cancelPendingCommands } from './store-commands.ts';
import type { DeviceRow, RevocationReason } from './tables.ts';
import { toDevice } from './views.ts';

const TOKEN_PREFIX = 'det_';
const TOKEN_TTL_MS = 7 * 86_400_000;

export interface NewDevice {
  location_id: string;
  device_type: DeviceType;
  name: string;
  serial_number: string;
  model?: string | undefined;
  firmware_version?: string | undefined;
}

// The token is 32 random bytes, so a SHA-256 digest is enough to keep (a slow hash adds nothing).
export const digestToken = (token: string) => createHash('sha256').update(token).digest('base64url');

function newToken(now: Date) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return {
    token,
    digest: digestToken(token),
    expiresAt: new Date(now.getTime() + TOKEN_TTL_MS).toISOString(),
  };
}

/** A row of the store's store_devices as sync delivers it. */
export interface StoreDevice {
  id: string;
  status: 'online' | 'offline';
  firmware?: string | null | undefined;
  last_seen_at: string;
}

export function createRegistry(context: DeviceContext) {
  const { store } = context;
  const db = store.db;

  return {
    /** A device in `pending_activation` and its enrolment token, shown this once. */
    async register(tenantId: string, input: NewDevice) {
      if (!(await context.locationExists(tenantId, input.location_id))) throw locationMissing();
      const at = nowIso(context);
      const token = newToken(context.clock.now());
      const row: DeviceRow = {
        id: context.newId(),
        tenant_id: tenantId,
        location_id: input.location_id,
        device_type: input.device_type,
        name: input.name,
        serial_number: input.serial_number,
        model: input.model ?? null,
        firmware_version: input.firmware_version ?? null,
        state: 'pending_activation',
        last_seen_at: null,
        enrolled_at: null,
        enrollment_token_digest: token.digest,
        enrollment_token_expires_at: token.expiresAt,
        revoked_at: null,
        created_at: at,
        updated_at: at,
      };
      await insertDevice(db, row).catch((error: unknown) => {
        throw store.isUniqueViolation(error) ? serialNumberTaken() : error;
      });
      return { ...toDevice({ ...row, certificate_expires_at: null }), enrollment_token: token.token };
    },

    getDevice: async (tenantId: string, deviceId: string) =>
      toDevice(await requireDevice(context, tenantId, deviceId)),

    async listDevices(
      tenantId: string,
      filter: DeviceFilter,
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await devices(db, tenantId, filter, {
        limit: page.limit + 1,
        ...(page.cursor ? { after: page.cursor } : {}),
      });
      const items = rows.slice(0, page.limit).map(toDevice);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    /**
     * A new token; the previous one stops working. The state stays as it is: a device that never
     * enrolled is still `pending_activation`; an enrolled one keeps its certificate until it enrols
     * again with the new token (a replaced or reset unit), which supersedes the old certificate.
     */
    async regenerateToken(tenantId: string, deviceId: string) {
      const row = await requireDevice(context, tenantId, deviceId);
      if (row.state === 'revoked') throw deviceRevoked();
      const token = newToken(context.clock.now());
      const patch = {
        enrollment_token_digest: token.digest,
        enrollment_token_expires_at: token.expiresAt,
        updated_at: nowIso(context),
      };
      if (!(await updateDevice(db, tenantId, deviceId, patch, { notRevoked: true }))) throw deviceRevoked();
      return {
        device_id: deviceId,
        state: row.state,
        enrollment_token: token.token,
        expires_at: token.expiresAt,
      };
    },

    /** For good: its certificates are revoked, its token and waiting commands dropped. Idempotent. */
    async revokeDevice(
      tenantId: string,
      deviceId: string,
      reason: RevocationReason = 'cessation_of_operation',
    ) {
      const row = await requireDevice(context, tenantId, deviceId);
      if (row.state !== 'revoked') {
        const revocation = { at: nowIso(context), reason };
        const revoked = await db.transaction().execute(async (trx) => {
          const patch = {
            state: 'revoked' as const,
            revoked_at: revocation.at,
            enrollment_token_digest: null,
            enrollment_token_expires_at: null,
            updated_at: revocation.at,
          };
          await updateDevice(trx, tenantId, deviceId, patch, { notRevoked: true });
          const live = await liveCertificates(trx, tenantId, { deviceId });
          await revokeCertificates(trx, tenantId, { deviceId }, revocation);
          await cancelPendingCommands(trx, tenantId, deviceId, revocation.at);
          return live;
        });
        const certificates = revoked.map((certificate) => revokedNotice(certificate, revocation));
        context.revocations.tell({ tenantId, certificates });
      }
      return toDevice(await requireDevice(context, tenantId, deviceId));
    },

    /**
     * In the transaction applying a store's push: its broker's word on its devices (the synced
     * store_devices rows). Devices the cloud registered at that store take the store's online or
     * offline, last sighting and firmware; a device not enrolled or revoked keeps its state, and
     * an id the registry does not have there is ignored.
     */
    async applyStoreDevices(trx: Db, tenantId: string, locationId: string, rows: StoreDevice[]) {
      for (const row of rows) {
        // The store's clock wrote it; a value that is no time (a corrupt row) is no sighting.
        if (Number.isNaN(Date.parse(row.last_seen_at))) continue;
        await recordSighting(trx, tenantId, locationId, row.id, {
          state: row.status,
          lastSeenAt: new Date(row.last_seen_at).toISOString(),
          firmware: row.firmware ?? null,
          updatedAt: nowIso(context),
        });
      }
    },

    /** The fleet link's word on a device: enrolled devices go online or offline; others stay. */
    async markPresence(
      tenantId: string,
      deviceId: string,
      presence: 'online' | 'offline',
      at: Date,
      firmware?: string | undefined,
    ) {
      const row = await requireDevice(context, tenantId, deviceId);
      if (row.state === 'pending_activation' || row.state === 'revoked') return toDevice(row);
      const seen = at.toISOString();
      const lastSeen = row.last_seen_at && row.last_seen_at > seen ? row.last_seen_at : seen;
      await updateDevice(
        db,
        tenantId,
        deviceId,
        {
          state: presence,
          last_seen_at: lastSeen,
          updated_at: nowIso(context),
          ...(firmware ? { firmware_version: firmware } : {}),
        },
        { notRevoked: true },
      );
      return toDevice(await requireDevice(context, tenantId, deviceId));
    },
  };
}
