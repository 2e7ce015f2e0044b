import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import {
  FINAL_ACK_STATES,
  type FleetAck,
  type RevokedCertificate,
  revokeCertificatesCommand,
} from '../../shared/devices/fleet-protocol.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { RevocationNotice, RevokedCertificateNotice } from '../devices/index.ts';
import type { CloudFleetLink } from '../fleet/index.ts';
import type { CloudServices } from '../services.ts';

export interface RevocationPushDeps {
  services: Pick<CloudServices, 'sync'>;
  link: Pick<CloudFleetLink, 'send'>;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
}

/** Pushes remembered for their acknowledgements (logged); older ones are forgotten first. */
const REMEMBERED_PUSHES = 1000;

/**
 * A device certificate the cloud revokes reaches the stores in seconds: pushed over the fleet link
 * as a `revoke_certificates` command (QoS 1, into the appliance's persistent session) to the
 * appliances of the store the certificate names, whose broker alone admits it, or to all of the
 * tenant's appliances when it names none. The appliance refuses the certificate from then on and
 * closes its open sessions. Nothing here is kept for a resend: an appliance that missed a push
 * catches up from the revocation list (`?since=`) whenever its link comes back, and polls it.
 *
 * A certificate superseded by a renewal or a new enrolment is not pushed: its device reconnects
 * with the new one of its own accord, and cutting it at once could beat the renewal's answer to
 * the device. The revocation list still carries it to the stores within the poll.
 */
export function createRevocationPush(deps: RevocationPushDeps) {
  const { services, link, log } = deps;
  const pushed = new Map<string, { serials: string[]; sentAt: number }>();

  const toWire = (certificate: RevokedCertificateNotice): RevokedCertificate => ({
    serial: certificate.serial,
    revoked_at: certificate.revoked_at,
    reason: certificate.reason,
    not_after: certificate.not_after,
  });

  async function appliancesFor(tenantId: string, locationId: string | undefined) {
    const all = await services.sync.listAppliances(tenantId, locationId);
    return all.filter((appliance) => appliance.status === 'active').map((appliance) => appliance.id);
  }

  function remember(commandId: string, serials: string[]) {
    pushed.set(commandId, { serials, sentAt: deps.clock.now().getTime() });
    for (const oldest of pushed.keys()) {
      if (pushed.size <= REMEMBERED_PUSHES) break;
      pushed.delete(oldest);
    }
  }

  async function pushTo(
    tenantId: string,
    locationId: string | undefined,
    certificates: RevokedCertificate[],
  ) {
    const appliances = await appliancesFor(tenantId, locationId);
    const command = revokeCertificatesCommand(deps.newId(), deps.clock.now(), certificates);
    const serials = certificates.map((certificate) => certificate.serial);
    remember(command.id, serials);
    for (const applianceId of appliances) {
      await link
        .send(tenantId, applianceId, command)
        .catch((error: unknown) =>
          log.warn({ err: error, applianceId, serials }, 'revocation not pushed; the appliance polls for it'),
        );
    }
    log.info(
      { tenantId, locationId: locationId ?? null, serials, appliances, commandId: command.id },
      'revocation pushed over the fleet link',
    );
    return { commandId: command.id, appliances };
  }

  return {
    /** Pushes what a revocation reached, one command per store; answers where each went. */
    async push(notice: RevocationNotice) {
      const now = deps.clock.now().toISOString();
      const byLocation = new Map<string | undefined, RevokedCertificate[]>();
      for (const certificate of notice.certificates) {
        if (certificate.reason === 'superseded' || certificate.not_after <= now) continue;
        const group = byLocation.get(certificate.location_id) ?? [];
        group.push(toWire(certificate));
        byLocation.set(certificate.location_id, group);
      }
      const sent = [];
      for (const [locationId, certificates] of byLocation)
        sent.push({ locationId, ...(await pushTo(notice.tenantId, locationId, certificates)) });
      return sent;
    },

    /** True when the acknowledgement answered a push of ours (then logged), false for anything else. */
    onAck(tenantId: string, applianceId: string, ack: FleetAck) {
      const push = pushed.get(ack.command_id);
      if (!push) return false;
      if (!FINAL_ACK_STATES.has(ack.state)) return true;
      const fields = {
        tenantId,
        applianceId,
        serials: push.serials,
        state: ack.state,
        afterMs: deps.clock.now().getTime() - push.sentAt,
        ...(ack.result ? { result: ack.result } : {}),
        ...(ack.reason ? { reason: ack.reason } : {}),
      };
      if (ack.state === 'succeeded') log.info(fields, 'revocation applied by the appliance');
      else log.warn(fields, 'revocation not applied by the appliance; it catches up from the list');
      return true;
    },
  };
}

export type RevocationPush = ReturnType<typeof createRevocationPush>;
