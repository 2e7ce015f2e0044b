/**
 * The cloud's update signing keys (Ed25519), cloud-wide: every appliance of every tenant is set up
 * with the first public key and follows rotations through endorsements, each newer key signed by
 * the one before it. The first key is made on first need by whichever replica gets there first; a
 * partial unique index keeps exactly one active. As with the device CA, the private keys are PKCS#8
 * PEM in the database: production would keep them in a KMS or HSM and sign there.
 */
import { createPrivateKey, generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { endorseKey, type KeyEndorsement, updateKeyId } from '../../shared/devices/update-manifest.ts';
import type { Db, Store } from '../db/index.ts';
import { rotationConflict } from './errors.ts';
import * as queries from './store.ts';
import type { UpdateKeyRow } from './tables.ts';

export interface UpdateKeyDeps {
  db: Db;
  isUniqueViolation: Store['isUniqueViolation'];
  clock: Clock;
}

export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
  /** Oldest first: from the first key to this one, so an appliance that knows any of them follows. */
  endorsements: KeyEndorsement[];
}

function newKey(now: string, previous: UpdateKeyRow | undefined): UpdateKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    key_id: updateKeyId(publicKey),
    public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    state: 'active',
    endorsement: previous ? JSON.stringify(endorseKey(publicKey, previous.private_key)) : null,
    created_at: now,
    retired_at: null,
  };
}

/** The endorsements from the first key to `key`, followed back through who endorsed whom. */
function chainTo(keys: UpdateKeyRow[], key: UpdateKeyRow): KeyEndorsement[] {
  const byId = new Map(keys.map((row) => [row.key_id, row]));
  const chain: KeyEndorsement[] = [];
  for (let at: UpdateKeyRow | undefined = key; at?.endorsement && chain.length < keys.length; ) {
    const endorsement = JSON.parse(at.endorsement) as KeyEndorsement;
    chain.unshift(endorsement);
    at = byId.get(endorsement.endorsed_by);
  }
  return chain;
}

const endorserOf = (row: UpdateKeyRow) =>
  row.endorsement ? (JSON.parse(row.endorsement) as KeyEndorsement).endorsed_by : null;

/**
 * Oldest first by who endorsed whom, not by creation time: two rotations within one clock tick
 * would otherwise come out in either order.
 */
function inChainOrder(keys: UpdateKeyRow[]): UpdateKeyRow[] {
  const ordered = keys.filter((row) => endorserOf(row) === null);
  for (let i = 0; i < ordered.length; i += 1)
    ordered.push(...keys.filter((row) => endorserOf(row) === ordered[i]!.key_id && !ordered.includes(row)));
  return [...ordered, ...keys.filter((row) => !ordered.includes(row))];
}

export const toUpdateKey = (row: UpdateKeyRow) => ({
  key_id: row.key_id,
  public_key: row.public_key,
  state: row.state,
  active: row.state === 'active',
  endorsed_by: endorserOf(row),
  created_at: row.created_at,
  retired_at: row.retired_at,
});
export type UpdateKey = ReturnType<typeof toUpdateKey>;

// Download tokens are MACed with a key derived from an update key's private half: shared by every
// replica through the database, rotated with it, and useless for anything but this purpose.
const TOKEN_KEY_INFO = 'edge-cloud release artifact token v1';

export function createUpdateKeys(deps: UpdateKeyDeps) {
  const { db } = deps;
  const tokenKeys = new Map<string, Buffer>();

  /** The active key, made now when there is none yet; a replica that loses the race reads the winner's. */
  async function ensureActive(): Promise<UpdateKeyRow> {
    const active = await queries.activeKey(db);
    if (active) return active;
    const previous = inChainOrder(await queries.updateKeys(db)).at(-1);
    const created = newKey(deps.clock.now().toISOString(), previous);
    try {
      await queries.insertKey(db, created);
      return created;
    } catch (error) {
      if (!deps.isUniqueViolation(error)) throw error;
      const winner = await queries.activeKey(db);
      if (!winner) throw new Error('the active update key vanished after a concurrent insert');
      return winner;
    }
  }

  return {
    ensureActive,

    /** Every key, oldest first: the active one signs, the retired ones stay trusted. */
    async list(): Promise<UpdateKey[]> {
      await ensureActive();
      return inChainOrder(await queries.updateKeys(db)).map(toUpdateKey);
    },

    /** A new key endorsed by the active one takes its place; the old one no longer signs. */
    async rotate(): Promise<UpdateKey> {
      const current = await ensureActive();
      const now = deps.clock.now().toISOString();
      const next = newKey(now, current);
      await db.transaction().execute(async (trx) => {
        if (!(await queries.retireKey(trx, current.key_id, now))) throw rotationConflict();
        await queries.insertKey(trx, next);
      });
      return toUpdateKey(next);
    },

    async signingKey(): Promise<SigningKey> {
      const active = await ensureActive();
      const keys = await queries.updateKeys(db);
      return {
        keyId: active.key_id,
        privateKey: createPrivateKey(active.private_key),
        endorsements: chainTo(keys, active),
      };
    },

    /** The MAC key of download tokens made under update key `keyId`; undefined for an unknown key. */
    async tokenKey(keyId: string): Promise<Buffer | undefined> {
      const known = tokenKeys.get(keyId);
      if (known) return known;
      const row = await queries.updateKey(db, keyId);
      if (!row) return undefined;
      const secret = createPrivateKey(row.private_key).export({ type: 'pkcs8', format: 'der' });
      const derived = Buffer.from(hkdfSync('sha256', secret, keyId, TOKEN_KEY_INFO, 32));
      tokenKeys.set(keyId, derived);
      return derived;
    },
  };
}

export type UpdateKeys = ReturnType<typeof createUpdateKeys>;
