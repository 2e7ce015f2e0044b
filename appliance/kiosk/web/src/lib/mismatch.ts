/**
 * A pickup-window check that found the bag wrong: the data of a `vision.order_verified` event
 * (appliance/vision/runtime/verification.ts) or a stored verification. Missing or extra items are
 * a mismatch; a check with neither is fine whatever else it says.
 */
export interface ItemCount {
  name: string;
  quantity: number;
}

export interface VerificationPayload {
  /** The event names it `verification_id`; a stored verification, `id`. */
  verification_id?: string;
  id?: string;
  order_id: string;
  camera_id?: string;
  verified: boolean;
  missing_items: ItemCount[];
  extra_items: ItemCount[];
  created_at?: string;
}

export interface Mismatch {
  verificationId: string;
  orderId: string;
  cameraId: string | null;
  missing: ItemCount[];
  extra: ItemCount[];
  at: string;
}

const items = (value: unknown): ItemCount[] =>
  Array.isArray(value)
    ? value.filter(
        (i): i is ItemCount =>
          typeof i === 'object' && i !== null && typeof i.name === 'string' && typeof i.quantity === 'number',
      )
    : [];

/** The mismatch a verification reports, or undefined when the order checked out (or it is not one). */
export function mismatchOf(data: unknown, receivedAt: string): Mismatch | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const v = data as Partial<VerificationPayload>;
  const verificationId = v.verification_id ?? v.id;
  if (typeof verificationId !== 'string' || typeof v.order_id !== 'string') return undefined;
  const missing = items(v.missing_items);
  const extra = items(v.extra_items);
  if (missing.length === 0 && extra.length === 0) return undefined;
  return {
    verificationId,
    orderId: v.order_id,
    cameraId: typeof v.camera_id === 'string' ? v.camera_id : null,
    missing,
    extra,
    at: typeof v.created_at === 'string' ? v.created_at : receivedAt,
  };
}

/** `2× Fries, 1× Cola`. */
export const describeItems = (list: readonly ItemCount[]) =>
  list.map((i) => `${i.quantity}× ${i.name}`).join(', ');

/**
 * Mismatches waiting for a person, oldest first: a new one is added once (a feed replay after a
 * reconnect brings the same event again), and one already acknowledged does not come back.
 */
export function addMismatch(
  open: readonly Mismatch[],
  acknowledged: ReadonlySet<string>,
  next: Mismatch,
): readonly Mismatch[] {
  if (acknowledged.has(next.verificationId)) return open;
  if (open.some((m) => m.verificationId === next.verificationId)) return open;
  return [...open, next];
}
