import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import type { Clock } from '../../shared/clock.ts';
import type { PublishedJwk } from '../../shared/identity/schemas.ts';
import { SIGNING_ALG } from '../../shared/identity/tokens.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { SigningKeyRow } from './tables.ts';

export interface KeyRingOptions {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  /** The longest lifetime of anything the key signs: a retired key is published this long. */
  longestTokenLifetimeMs: number;
  rotateAfterMs: number;
  /** How long a replica trusts its in-memory copy before looking for another replica's rotation. */
  reloadAfterMs?: number;
}

interface LoadedKeys {
  active: { kid: string; privateKey: KeyObject; createdAt: number } | undefined;
  publicKeys: Map<string, KeyObject>;
  published: PublishedJwk[];
  loadedAt: number;
}

/**
 * Signing keys shared by every gateway replica through the store. Tokens name their key by `kid`;
 * a retired key keeps verifying, and stays in the JWKS, until the last token it signed has expired.
 */
export function createKeyRing(options: KeyRingOptions) {
  const { db, clock } = options;
  const reloadAfterMs = options.reloadAfterMs ?? 60_000;
  let loaded: LoadedKeys | undefined;
  let lastMissReload = 0;

  async function load(): Promise<LoadedKeys> {
    const nowIso = clock.now().toISOString();
    const rows = await db
      .selectFrom('signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('status', '=', 'active'), eb('publish_until', '>', nowIso)]))
      .orderBy('created_at', 'desc')
      .execute();
    const activeRow = rows.find((row) => row.status === 'active');
    loaded = {
      active: activeRow && {
        kid: activeRow.kid,
        privateKey: createPrivateKey(activeRow.private_key),
        createdAt: Date.parse(activeRow.created_at),
      },
      publicKeys: new Map(
        rows.map((row) => [row.kid, createPublicKey({ key: JSON.parse(row.public_jwk), format: 'jwk' })]),
      ),
      published: rows.map((row) => JSON.parse(row.public_jwk) as PublishedJwk),
      loadedAt: clock.now().getTime(),
    };
    return loaded;
  }

  async function current(): Promise<LoadedKeys> {
    if (loaded && clock.now().getTime() - loaded.loadedAt < reloadAfterMs) return loaded;
    return load();
  }

  async function newKeyRow(at: string): Promise<SigningKeyRow> {
    const kid = options.newId();
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
    return {
      kid,
      alg: SIGNING_ALG,
      private_key: await exportPKCS8(privateKey),
      public_jwk: JSON.stringify(jwk),
      status: 'active',
      created_at: at,
      retired_at: null,
      publish_until: null,
    };
  }

  /** Retires the active key (if any) and makes a new one active, in one transaction. */
  async function rotate() {
    const now = clock.now();
    const row = await newKeyRow(now.toISOString());
    const publishUntil = new Date(now.getTime() + options.longestTokenLifetimeMs).toISOString();
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('signing_keys')
        .set({ status: 'retired', retired_at: now.toISOString(), publish_until: publishUntil })
        .where('status', '=', 'active')
        .execute();
      await trx.insertInto('signing_keys').values(row).execute();
    });
    await load();
    return row.kid;
  }

  return {
    rotate,
    /** At start-up and on a timer: makes a first key, or rotates one that has served its time. */
    async rotateIfDue() {
      const { active } = await load();
      if (active && clock.now().getTime() - active.createdAt < options.rotateAfterMs) return undefined;
      return rotate();
    },
    async signingKey() {
      const { active } = await current();
      if (!active) throw new Error('no active signing key: call rotateIfDue() at start-up');
      return active;
    },
    /** A kid we have not seen may be another replica's fresh key: look again, at most once a second. */
    async verificationKey(kid: string) {
      const keys = await current();
      const known = keys.publicKeys.get(kid);
      const now = clock.now().getTime();
      if (known || now - lastMissReload < 1000) return known;
      lastMissReload = now;
      return (await load()).publicKeys.get(kid);
    },
    jwks: async () => ({ keys: (await current()).published }),
    /** Deletes retired keys no token can still need. */
    prune: () =>
      db
        .deleteFrom('signing_keys')
        .where('status', '=', 'retired')
        .where('publish_until', '<=', clock.now().toISOString())
        .execute(),
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
