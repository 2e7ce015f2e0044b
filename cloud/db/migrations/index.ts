import type { Migration } from 'kysely';
import * as tenancy from './0001-tenancy.ts';
import * as identity from './0002-identity.ts';
import * as sync from './0003-sync.ts';
import * as syncKeyProbes from './0004-sync-key-probes.ts';
import * as webhooks from './0005-webhooks.ts';
import * as devices from './0006-devices.ts';
import * as deviceTelemetryMinutes from './0007-device-telemetry-minutes.ts';
import * as incidents from './0008-incidents.ts';
import * as vision from './0009-vision.ts';
import * as visionModels from './0010-vision-models.ts';
import * as billing from './0011-billing.ts';
import * as pnl from './0012-pnl.ts';
import * as notify from './0013-notify.ts';
import * as oncall from './0014-oncall.ts';
import * as alerting from './0015-alerting.ts';
import * as aiops from './0016-aiops.ts';
import * as cockpit from './0017-cockpit.ts';
import * as chat from './0018-chat.ts';
import * as incidentFlow from './0019-incident-flow.ts';
import * as sso from './0020-sso.ts';
import * as wideIntegers from './0021-wide-integers.ts';
import * as commerce from './0022-commerce.ts';
import * as commerceTimeclock from './0023-commerce-timeclock.ts';
import * as commerceStockKitchen from './0024-commerce-stock-kitchen.ts';
import * as releases from './0025-releases.ts';
import * as rollouts from './0026-rollouts.ts';

/** Applied in name order; never edit one that has shipped, add the next. */
export const migrations: Record<string, Migration> = {
  '0001-tenancy': tenancy,
  '0002-identity': identity,
  '0003-sync': sync,
  '0004-sync-key-probes': syncKeyProbes,
  '0005-webhooks': webhooks,
  '0006-devices': devices,
  '0007-device-telemetry-minutes': deviceTelemetryMinutes,
  '0008-incidents': incidents,
  '0009-vision': vision,
  '0010-vision-models': visionModels,
  '0011-billing': billing,
  '0012-pnl': pnl,
  '0013-notify': notify,
  '0014-oncall': oncall,
  '0015-alerting': alerting,
  '0016-aiops': aiops,
  '0017-cockpit': cockpit,
  '0018-chat': chat,
  '0019-incident-flow': incidentFlow,
  '0020-sso': sso,
  '0021-wide-integers': wideIntegers,
  '0022-commerce': commerce,
  '0023-commerce-timeclock': commerceTimeclock,
  '0024-commerce-stock-kitchen': commerceStockKitchen,
  '0025-releases': releases,
  '0026-rollouts': rollouts,
};
