/**
 * Rows of "merge" tables are Yjs documents whose fields resolve concurrent edits by HLC stamp: the
 * edit with the greater stamp wins. Plain Yjs settles two sets of one map key by client id, which
 * says nothing about which edit came later, so no two writes here ever share a key.
 *
 * The root map `fields` holds one entry per (field, stamp) under a key of its own, with the field,
 * stamp and value in the entry. It is flat on purpose: a nested map per field would have to be
 * created by whichever replica writes the field first, and two replicas doing that concurrently set
 * the same root key; Yjs keeps one of the nested maps and silently drops the writes in the other.
 *
 * A write deletes the entries of that field it has seen, which are all older, so history stays
 * small. Entries written concurrently elsewhere survive the merge and lose or win on their stamp.
 * A write whose stamp is not newer than one the doc already holds is dropped: it would lose anyway.
 * So an entry is only ever deleted by a newer one and the newest write ever made always survives.
 */
import * as Y from 'yjs';
import { compareHlc, isHlc } from './hlc.ts';

export type FieldValue = string | number | boolean | null;

interface Entry {
  field: string;
  stamp: string;
  value: FieldValue;
}

const ROOT = 'fields';
// A doc's guid only names it among subdocuments, which rows never have; left out, Yjs draws a
// random UUID for every doc, 31 calls to the system's random source each time.
const DOC_GUID = 'sync-row';
const FILLER = 'compaction-filler';
/** Past this many bytes of encoded state a row's document is rebuilt from its winning entries. */
export const MAX_DOC_BYTES = 4096;

const isFieldValue = (value: unknown): value is FieldValue =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));

function isEntry(value: unknown): value is Entry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.field === 'string' && isHlc(entry.stamp) && isFieldValue(entry.value);
}

const rootMap = (doc: Y.Doc): Y.Map<unknown> => doc.getMap<unknown>(ROOT);

// JSON keeps the key injective whatever characters a field name holds.
const entryKey = (field: string, stamp: string, copyTag?: string): string =>
  JSON.stringify(copyTag === undefined ? [field, stamp] : [field, stamp, copyTag]);

/** Every well-formed entry by field; entries from a peer that fail the shape check are ignored. */
function entriesByField(doc: Y.Doc): Map<string, Array<{ key: string; entry: Entry }>> {
  const byField = new Map<string, Array<{ key: string; entry: Entry }>>();
  rootMap(doc).forEach((value, key) => {
    if (!isEntry(value)) return;
    const list = byField.get(value.field) ?? [];
    list.push({ key, entry: value });
    byField.set(value.field, list);
  });
  return byField;
}

function winners(doc: Y.Doc): Entry[] {
  const result: Entry[] = [];
  for (const list of entriesByField(doc).values()) {
    let best: Entry | undefined;
    for (const { entry } of list) {
      if (best === undefined || compareHlc(entry.stamp, best.stamp) > 0) best = entry;
    }
    if (best !== undefined) result.push(best);
  }
  return result;
}

/**
 * `clientId` must be stable per device (and unique among devices). Yjs otherwise gives every fresh
 * doc a random client id, and each id ever used stays in the state vector, so the vector and every
 * sync message would grow with each edit made after a reload.
 */
export function createRowDoc(clientId: number): Y.Doc {
  const doc = new Y.Doc({ gc: true, guid: DOC_GUID });
  doc.clientID = clientId;
  return doc;
}

/**
 * The client id is set only after the state is applied: applying a state that already holds our own
 * edits looks to Yjs like another client using our id, and it would switch to a random one.
 * Same reason the stored state must be this device's newest: an older one would make Yjs reuse
 * clocks it has already sent. An empty state (no stored doc yet) gives a new doc; Yjs would throw.
 */
export function loadRowDoc(state: Uint8Array, clientId: number): Y.Doc {
  const doc = new Y.Doc({ gc: true, guid: DOC_GUID });
  if (state.byteLength > 0) Y.applyUpdate(doc, state);
  doc.clientID = clientId;
  return doc;
}

export function writeFields(doc: Y.Doc, fields: Record<string, FieldValue>, stamp: string): void {
  if (!isHlc(stamp)) throw new Error(`Malformed HLC stamp: ${JSON.stringify(stamp)}`);
  doc.transact(() => {
    const map = rootMap(doc);
    const seen = entriesByField(doc);
    for (const [field, value] of Object.entries(fields)) {
      if (!isFieldValue(value)) throw new Error(`Field ${field} is not a JSON scalar`);
      const existing = seen.get(field) ?? [];
      if (existing.some(({ entry }) => compareHlc(entry.stamp, stamp) >= 0)) continue;
      for (const { key } of existing) map.delete(key);
      map.set(entryKey(field, stamp), { field, stamp, value } satisfies Entry);
    }
  });
}

export function readFields(doc: Y.Doc): Record<string, FieldValue> {
  return Object.fromEntries(winners(doc).map((entry) => [entry.field, entry.value]));
}

/** The winning stamp per field; the greatest of them is the newest HLC the doc has seen. */
export function fieldStamps(doc: Y.Doc): Record<string, string> {
  return Object.fromEntries(winners(doc).map((entry) => [entry.field, entry.stamp]));
}

export const encodeRowDoc = (doc: Y.Doc): Uint8Array => Y.encodeStateAsUpdate(doc);

/**
 * If the update holds edits under this doc's own client id that the doc lacks, Yjs concludes that
 * another client uses the id and switches to a random one: keep one doc per device up to date.
 */
export const mergeUpdate = (doc: Y.Doc, update: Uint8Array): void => Y.applyUpdate(doc, update);

/** Deleted entries keep a tombstone with their key in the encoded state, so size tracks history. */
export const needsCompaction = (doc: Y.Doc, maxBytes = MAX_DOC_BYTES): boolean =>
  encodeRowDoc(doc).byteLength > maxBytes;

/**
 * A new doc holding only the winning entries, under their original stamps, written by `clientId`.
 *
 * Why merging any older state of the row into it still gives the same fields: values are chosen by
 * stamp, not by Yjs. Entries the old state brings back were deleted by newer writes, so they lose to
 * the winners, which are here with the same stamps; newer writes in the old state win, as they would
 * have against the original. Replicas receiving the compacted doc converge the same way.
 *
 * Two Yjs rules shape the rebuild:
 * - `clientId` must not reuse clocks it already spent on this row, or peers would take new edits
 *   for old ones. A deleted filler first advances its clock past what the source doc holds, so the
 *   source doc must hold every edit `clientId` ever made to the row (this device's own copy).
 * - The filler's delete reaches peers as a delete of this client's original entries, so the copies
 *   carry a key of their own (tagged with client and clock); under the original key Yjs could order
 *   the copy before the original and the delete would then remove the field altogether.
 *
 * The compacted doc has no history from other clients. A replica that adopts it in place of its
 * stored doc must first merge its own stored state in (for its clock, as above), and peers that have
 * not adopted it must send full states, not incremental updates: Yjs parks an update whose earlier
 * clocks from the same client it has never seen.
 */
export function compactRowDoc(doc: Y.Doc, clientId: number): Y.Doc {
  const compacted = createRowDoc(clientId);
  const clock = Y.getState(doc.store, clientId);
  compacted.transact(() => {
    if (clock > 0) {
      const filler = compacted.getText(FILLER);
      filler.insert(0, 'x'.repeat(clock));
      filler.delete(0, clock);
    }
    const map = rootMap(compacted);
    const copyTag = `${clientId}.${clock}`;
    for (const entry of winners(doc)) map.set(entryKey(entry.field, entry.stamp, copyTag), entry);
  });
  return compacted;
}

/**
 * The doc to keep and its encoded state, encoded once: the doc itself, or, once its history has
 * grown past `maxBytes`, its compacted rebuild.
 */
export function settleRowDoc(doc: Y.Doc, clientId: number, maxBytes = MAX_DOC_BYTES) {
  const state = encodeRowDoc(doc);
  if (state.byteLength <= maxBytes) return { doc, state };
  const compacted = compactRowDoc(doc, clientId);
  return { doc: compacted, state: encodeRowDoc(compacted) };
}

/**
 * Whether state `a` holds everything state `b` does, read from their state vectors alone (no doc
 * is built). Sound here because every delete in a row doc comes with an insert by the same client
 * in the same transaction (a write replaces entries; compaction inserts its filler), so having
 * seen a client's clock means having seen its deletes too.
 */
export function coversState(a: Uint8Array, b: Uint8Array): boolean {
  const theirs = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(a));
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVectorFromUpdate(b))) {
    if ((theirs.get(client) ?? 0) < clock) return false;
  }
  return true;
}

export interface MergedRow {
  fields: Record<string, FieldValue>;
  /** The state to keep: `incoming` itself when it already held everything `stored` did. */
  state: Uint8Array;
  /** `stored` held edits `incoming` lacked: the sender should be told the merged row. */
  storedHadMore: boolean;
}

/**
 * A replica's stored state of a row (undefined when it has none) merged with one that arrived.
 * The usual case, a state that covers what is stored, is read once and kept as it came, with no
 * document rebuilt or re-encoded; otherwise both are merged, and compacted when large.
 */
export function mergeRowStates(
  stored: Uint8Array | undefined,
  incoming: Uint8Array,
  clientId: number,
  /** The incoming state's fields as its sender read them, when that sender is to be trusted. */
  incomingFields?: Record<string, FieldValue>,
): MergedRow {
  const storedHadMore = stored !== undefined && !coversState(incoming, stored);
  if (!storedHadMore && incoming.byteLength <= MAX_DOC_BYTES) {
    const fields = incomingFields ?? readFields(loadRowDoc(incoming, clientId));
    return { fields, state: incoming, storedHadMore };
  }
  const merged = loadRowDoc(stored ?? new Uint8Array(), clientId);
  mergeUpdate(merged, incoming);
  const { doc, state } = settleRowDoc(merged, clientId);
  return { fields: readFields(doc), state, storedHadMore };
}
