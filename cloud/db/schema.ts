import type { AiopsTables } from '../aiops/index.ts';
import type { AlertingTables } from '../alerting/index.ts';
import type { AuditTables } from '../audit/index.ts';
import type { BillingTables } from '../billing/index.ts';
import type { ChatTables } from '../chat/index.ts';
import type { CockpitTables } from '../cockpit/index.ts';
import type { CommerceTables, TimeclockTables } from '../commerce/index.ts';
import type { DeviceTables } from '../devices/index.ts';
import type { EventTables } from '../events/index.ts';
import type { IdentityTables } from '../identity/index.ts';
import type { IncidentTables } from '../incidents/index.ts';
import type { NotifyTables } from '../notify/index.ts';
import type { OncallTables } from '../oncall/index.ts';
import type { PnlTables } from '../pnl/index.ts';
import type { SsoTables } from '../sso/index.ts';
import type { SyncTables } from '../sync/index.ts';
import type { TenancyTables } from '../tenancy/index.ts';
import type { VisionModelTables, VisionTables } from '../vision/index.ts';
import type { WebhookTables } from '../webhooks/index.ts';

/** The whole cloud store, composed of the tables each module owns. */
export type Database = TenancyTables &
  IdentityTables &
  AuditTables &
  EventTables &
  SyncTables &
  WebhookTables &
  DeviceTables &
  IncidentTables &
  VisionTables &
  VisionModelTables &
  BillingTables &
  NotifyTables &
  OncallTables &
  AlertingTables &
  AiopsTables &
  CockpitTables &
  ChatTables &
  SsoTables &
  PnlTables &
  CommerceTables &
  TimeclockTables;
