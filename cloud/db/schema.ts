import type { AiopsTables } from '../aiops/tables.ts';
import type { AlertingTables } from '../alerting/tables.ts';
import type { AuditTables } from '../audit/store.ts';
import type { BillingTables } from '../billing/tables.ts';
import type { ChatTables } from '../chat/tables.ts';
import type { CockpitTables } from '../cockpit/tables.ts';
import type { DeviceTables } from '../devices/tables.ts';
import type { EventTables } from '../events/index.ts';
import type { IdentityTables } from '../identity/tables.ts';
import type { IncidentTables } from '../incidents/tables.ts';
import type { NotifyTables } from '../notify/tables.ts';
import type { OncallTables } from '../oncall/tables.ts';
import type { PnlTables } from '../pnl/tables.ts';
import type { SsoTables } from '../sso/tables.ts';
import type { SyncTables } from '../sync/tables.ts';
import type { TenancyTables } from '../tenancy/tables.ts';
import type { VisionModelTables } from '../vision/models/tables.ts';
import type { VisionTables } from '../vision/tables.ts';
import type { WebhookTables } from '../webhooks/tables.ts';

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
  PnlTables;
