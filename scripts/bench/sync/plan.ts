/** How much work each measure of the sync benchmark does: the sizes, or a tenth for `--quick`. */
export interface SyncPlan {
  /** Orders written offline before the drain, each with 1–3 items and a payment. */
  drainOrders: number;
  /** Time punches written offline before their drain; every tenth punch is also corrected. */
  punches: number;
  /** Changes the cloud writes for one store before its appliance pulls them. */
  pullChanges: number;
  /** Outbox rows an appliance piles up during its 72 hours offline. */
  offlineChanges: number;
  /** The cloud's own edits of that store meanwhile. */
  cloudEdits: { prices: number; corrections: number; restocks: number };
  /** Single orders written one at a time while the sync worker runs. */
  latencyWrites: number;
  /** The pause before each of them, drawn evenly from this range. */
  latencyGapMs: readonly [number, number];
}

export const FULL_PLAN: SyncPlan = {
  drainOrders: 100_000,
  punches: 20_000,
  pullChanges: 50_000,
  offlineChanges: 50_000,
  cloudEdits: { prices: 200, corrections: 1000, restocks: 1500 },
  latencyWrites: 300,
  latencyGapMs: [100, 250],
};

export const QUICK_PLAN: SyncPlan = {
  drainOrders: 10_000,
  punches: 2000,
  pullChanges: 5000,
  offlineChanges: 5000,
  cloudEdits: { prices: 40, corrections: 100, restocks: 150 },
  latencyWrites: 60,
  latencyGapMs: [100, 250],
};

/** The 72-hour store's base: menu items, stock items and staff it had synced before going offline. */
export const OFFLINE_BASE = { menuItems: 300, stockItems: 100, staff: 100 } as const;
