import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { PublishedJwk } from '../../shared/identity/schemas.ts';
import { SIGNING_ALG } from '../../shared/identity/tokens.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase } from '../db/index.ts';

export type { PublishedJwk };

interface KeyRow {
  kid: string;
  private_key: string;
  public_jwk: string;
  created_at: string;
}

export interface ApplianceKeys {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwks(): { keys: PublishedJwk[] };
}

function newKeyRow(kid: string, at: string): KeyRow {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const jwk = { kty, crv, x, y, kid, alg: SIGNING_ALG, use: 'sig' } as PublishedJwk;
  return {
    kid,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    public_jwk: JSON.stringify(jwk),
    created_at: at,
  };
}

/**
 * The appliance's own signing key: made on first start and kept in the store, so tokens it signed
 * before a restart still verify after it.
 */
export function loadApplianceKeys(deps: { db: ApplianceDatabase; clock: Clock; newId: IdGenerator }) {
  const { db } = deps;
  const newest = db.prepare<[], KeyRow>('select * from appliance_keys order by created_at desc limit 1');
  const insert = db.prepare<KeyRow>(
    'insert into appliance_keys (kid, private_key, public_jwk, created_at) values (@kid, @private_key, @public_jwk, @created_at)',
  );
  const row = db.transaction(() => {
    const existing = newest.get();
    if (existing) return existing;
    const created = newKeyRow(deps.newId(), deps.clock.now().toISOString());
    insert.run(created);
    return created;
  })();
  const jwk = JSON.parse(row.public_jwk) as PublishedJwk;
  const keys: ApplianceKeys = {
    kid: row.kid,
    privateKey: createPrivateKey(row.private_key),
    publicKey: createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' }),
    jwks: () => ({ keys: [jwk] }),
  };
  return keys;
}
