/**
 * Enrolment (token + CSR → certificate), renewal by proof of the current key, revocation, the
 * expiry listing and what appliances read to refuse revoked devices (serial list and X.509 CRL).
 */
import { X509Certificate as NodeCertificate, webcrypto } from 'node:crypto';
import { pemToDer, type RenewRequest, verifyRenewalSignature } from '../../shared/devices/enrolment.ts';
import type { DeviceIdentity } from '../../shared/devices/identity.ts';
import { EC_P256, x509 } from '../../shared/devices/x509.ts';
import type { Db } from '../db/index.ts';
import { type CertificateRequest, type IssuedCertificate, readCertificateRequest } from './ca.ts';
import { type DeviceContext, nowIso, requireDevice } from './context.ts';
import * as errors from './errors.ts';
import { digestToken } from './registry.ts';
import { revokedNotice } from './revocation-notices.ts';
import * as queries from './store.ts';
import type { DeviceCertificateRow, DeviceRow, RevocationReason } from './tables.ts';
import { toCertificate, toIssued } from './views.ts';

const identityOf = (row: DeviceRow): DeviceIdentity => ({
  tenantId: row.tenant_id,
  locationId: row.location_id,
  deviceId: row.id,
  deviceType: row.device_type,
});

const certificateRow = (row: DeviceRow, issued: IssuedCertificate, at: string): DeviceCertificateRow => ({
  serial: issued.serial,
  tenant_id: row.tenant_id,
  device_id: row.id,
  public_key_sha256: issued.publicKeySha256,
  certificate_pem: issued.pem,
  not_before: issued.notBefore.toISOString(),
  not_after: issued.notAfter.toISOString(),
  created_at: at,
  revoked_at: null,
  revocation_reason: null,
  replaced_by: null,
});

/** The stored certificate the device presented, or undefined when it is not one of ours for it. */
async function presentedCertificate(context: DeviceContext, deviceId: string, pem: string) {
  let presented: NodeCertificate;
  try {
    presented = new NodeCertificate(pem);
  } catch {
    throw errors.invalidCertificate();
  }
  const record = await queries.certificateBySerial(context.store.db, presented.serialNumber.toLowerCase());
  // Byte-for-byte the certificate we issued to this device: a look-alike with our serial is not.
  if (!record || record.device_id !== deviceId || !pemToDer(record.certificate_pem).equals(presented.raw))
    return undefined;
  return { record, publicKeySpki: presented.publicKey.export({ format: 'der', type: 'spki' }) };
}

export function createCertificates(context: DeviceContext) {
  const { store, ca } = context;
  const db = store.db;

  /**
   * Issues a certificate for the device and stores it, superseding what it replaces (the one being
   * renewed, or everything the device held), after `claim` ran in the same transaction.
   */
  async function issueAndStore(
    row: DeviceRow,
    request: CertificateRequest,
    replaces: { serial?: string | undefined; claim?: (trx: Db) => Promise<void> },
  ) {
    const issued = await ca.issue(request, identityOf(row));
    const at = nowIso(context);
    const target = { deviceId: row.id, ...(replaces.serial ? { serial: replaces.serial } : {}) };
    const superseded = { at, reason: 'superseded' as const, replacedBy: issued.serial };
    const replaced = await db.transaction().execute(async (trx) => {
      await replaces.claim?.(trx);
      const live = await queries.liveCertificates(trx, row.tenant_id, target);
      const changed = await queries.revokeCertificates(trx, row.tenant_id, target, superseded);
      if (replaces.serial && changed === 0) throw errors.renewalConflict();
      await queries.insertCertificate(trx, certificateRow(row, issued, at));
      return live;
    });
    context.revocations.tell({
      tenantId: row.tenant_id,
      certificates: replaced.map((certificate) => revokedNotice(certificate, superseded)),
    });
    return { serial: issued.serial, pem: issued.pem, notAfter: issued.notAfter.toISOString() };
  }

  async function issuedAnswer(
    row: DeviceRow,
    certificate: { serial: string; pem: string; notAfter: string },
  ) {
    return toIssued(row, certificate, await ca.certificatePem());
  }

  return {
    caCertificate: async () => {
      const pem = await ca.certificatePem();
      const parsed = new NodeCertificate(pem);
      return {
        certificate: pem,
        fingerprint_sha256: parsed.fingerprint256,
        not_after: new Date(parsed.validTo).toISOString(),
      };
    },

    /**
     * Token and CSR for a certificate. The token is claimed in the same transaction that stores the
     * certificate, so two devices racing with one token get one certificate between them; a CSR that
     * does not verify is refused before the token is touched, so the device can try again.
     */
    async enrol(input: { enrollment_token: string; csr: string }) {
      const request = await readCertificateRequest(input.csr);
      const digest = digestToken(input.enrollment_token);
      const row = await queries.deviceByTokenDigest(db, digest);
      const now = nowIso(context);
      const expiresAt = row?.enrollment_token_expires_at;
      if (!row || row.state === 'revoked' || !expiresAt || expiresAt <= now) {
        const reason = !row ? 'unknown' : row.state === 'revoked' ? 'revoked' : 'expired';
        context.log.info({ reason }, 'enrolment refused');
        throw errors.invalidEnrollmentToken();
      }
      // A unit enrolling again (replaced, reset) supersedes whatever it held before.
      const issued = await issueAndStore(row, request, {
        claim: async (trx) => {
          const activated = {
            state: 'active' as const,
            enrolled_at: row.enrolled_at ?? now,
            enrollment_token_digest: null,
            enrollment_token_expires_at: null,
            updated_at: now,
          };
          const only = { tokenDigest: digest, notRevoked: true };
          if (!(await queries.updateDevice(trx, row.tenant_id, row.id, activated, only)))
            throw errors.invalidEnrollmentToken();
        },
      });
      await context.audit?.record({
        action: 'device.enrolled',
        outcome: 'success',
        tenantId: row.tenant_id,
        details: { device_id: row.id, serial: issued.serial },
      });
      const answer = await issuedAnswer(row, issued);
      if (row.device_type !== 'appliance' || !context.issueApplianceCredential)
        return { ...answer, sync_credential: undefined as string | undefined };
      // An appliance's sync and fleet-link credential comes from the same enrolment, named by its id.
      const credential = await context.issueApplianceCredential(
        row.tenant_id,
        row.location_id,
        row.id,
        row.name,
      );
      return { ...answer, sync_credential: credential };
    },

    /**
     * A new certificate for a new key, asked for by the device itself: the current certificate must
     * be this device's, unrevoked and unexpired, and its key must have signed the new CSR. The
     * current certificate is revoked as superseded. Asking again with the same CSR after a lost
     * answer returns the certificate already issued for that key.
     */
    async renew(deviceId: string, input: RenewRequest) {
      const request = await readCertificateRequest(input.csr);
      const presented = await presentedCertificate(context, deviceId, input.certificate);
      if (!presented || !verifyRenewalSignature(request.der, presented.publicKeySpki, input.signature))
        throw errors.renewalUnauthorized();
      const { record } = presented;
      const row = await requireDevice(context, record.tenant_id, deviceId);
      if (record.revoked_at !== null) {
        const successor = record.replaced_by
          ? await queries.certificate(db, record.tenant_id, record.replaced_by)
          : undefined;
        const retried =
          record.revocation_reason === 'superseded' &&
          successor?.revoked_at === null &&
          successor.public_key_sha256 === request.publicKeySha256;
        if (!retried) throw errors.certificateRevoked();
        return issuedAnswer(row, {
          serial: successor.serial,
          pem: successor.certificate_pem,
          notAfter: successor.not_after,
        });
      }
      if (record.not_after <= nowIso(context)) throw errors.certificateExpired();
      if (request.publicKeySha256 === record.public_key_sha256) throw errors.keyReused();
      const issued = await issueAndStore(row, request, { serial: record.serial });
      await context.audit?.record({
        action: 'device.certificate_renewed',
        outcome: 'success',
        tenantId: row.tenant_id,
        details: { device_id: row.id, serial: issued.serial, replaces: record.serial },
      });
      return issuedAnswer(row, issued);
    },

    /**
     * Whether a certificate a TLS peer showed still speaks for its device: ours, for that device
     * of that tenant, not revoked, not run out, and the device not revoked. (The TLS layer has
     * checked the CA's signature; this adds what only the registry knows.)
     */
    async certificateValid(tenantId: string, deviceId: string, serial: string) {
      const record = await queries.certificate(db, tenantId, serial.toLowerCase());
      if (!record || record.device_id !== deviceId || record.revoked_at !== null) return false;
      if (record.not_after <= nowIso(context)) return false;
      const device = await queries.device(db, tenantId, deviceId);
      return device !== undefined && device.state !== 'revoked';
    },

    /** A key pair made here and its server certificate from the CA, for the fleet broker's TLS. */
    async serverCertificate(names: { dns: string[]; ip: string[] }, days = 90) {
      const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const issued = await ca.issueServer(keys.publicKey, names, days);
      const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
      return { key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'), cert: issued.pem, ca: issued.caPem };
    },

    /** The tenant's certificates running out within `withinMs`, soonest first (already expired ones left out). */
    async expiringCertificates(
      tenantId: string,
      query: {
        withinMs: number;
        includeRevoked: boolean;
        limit: number;
        after?: queries.ExpiryPage['after'];
      },
    ) {
      const now = context.clock.now();
      const window = {
        from: now.toISOString(),
        until: new Date(now.getTime() + query.withinMs).toISOString(),
        includeRevoked: query.includeRevoked,
      };
      const rows = await queries.expiringCertificates(db, tenantId, window, {
        limit: query.limit + 1,
        after: query.after,
      });
      const items = rows.slice(0, query.limit);
      const last = items.at(-1);
      const nextCursor = rows.length > query.limit && last ? `${last.not_after}_${last.serial}` : null;
      return { items: items.map(toCertificate), nextCursor };
    },

    /** Revokes one certificate; the device keeps its state (it may enrol again). Idempotent. */
    async revokeCertificate(tenantId: string, serial: string, reason: RevocationReason = 'unspecified') {
      const normalized = serial.toLowerCase();
      const record = await queries.certificate(db, tenantId, normalized);
      if (!record) throw errors.certificateNotFound();
      if (record.revoked_at === null) {
        const target = { deviceId: record.device_id, serial: normalized };
        const revocation = { at: nowIso(context), reason };
        if ((await queries.revokeCertificates(db, tenantId, target, revocation)) > 0)
          context.revocations.tell({ tenantId, certificates: [revokedNotice(record, revocation)] });
      }
      return toCertificate((await queries.certificate(db, tenantId, normalized))!);
    },

    /**
     * Serials revoked (since `since`) whose certificates have not run out, across the CA: a
     * revocation list is public by nature (RFC 5280) and a random serial says nothing of its tenant.
     */
    async revokedSerials(since?: string) {
      const now = nowIso(context);
      const rows = await queries.revokedCertificates(db, now, since);
      return {
        generated_at: now,
        revoked: rows.map((row) => ({
          serial: row.serial,
          revoked_at: row.revoked_at!,
          reason: row.revocation_reason ?? 'unspecified',
          not_after: row.not_after,
        })),
      };
    },

    async crl() {
      const rows = await queries.revokedCertificates(db, nowIso(context));
      return ca.crl(
        rows.map((row) => ({
          serial: row.serial,
          revokedAt: row.revoked_at!,
          reason: row.revocation_reason,
        })),
      );
    },
  };
}
