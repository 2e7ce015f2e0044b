import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/**
 * An over-the-air update as the cloud announces it and the appliance checks it. The cloud signs
 * the manifest (Ed25519) and the manifest pins the artifact's size and SHA-256, so an appliance
 * needs only the cloud's public key to refuse anything the cloud did not publish, wherever the
 * bytes were downloaded from.
 *
 * The update key can be rotated without touching a store: a manifest may carry endorsements, each
 * a newer public key signed by an older one. An appliance that trusts the older key verifies the
 * endorsement, trusts the newer key from then on, and checks the manifest with the key it names.
 */
export interface UpdateManifest {
  version: string;
  url: string;
  size: number;
  sha256: string;
}

/** A newer update key vouched for by an older one. */
export interface KeyEndorsement {
  key_id: string;
  /** SPKI PEM of the newer key. */
  public_key: string;
  endorsed_by: string;
  /** Base64 Ed25519 signature by `endorsed_by` over `canonicalEndorsement`. */
  signature: string;
}

export interface SignedUpdate extends UpdateManifest {
  /** Base64 Ed25519 signature over `canonicalManifest`. */
  signature: string;
  /** The key that signed; absent in manifests from before rotation, checked against every trusted key. */
  key_id?: string | undefined;
  /** Oldest first: the chain from a key the appliance may know to `key_id`. */
  endorsements?: KeyEndorsement[] | undefined;
}

const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
export const isPlainVersion = (version: string) => VERSION.test(version);

const asPublicKey = (key: KeyObject | string) => (typeof key === 'string' ? createPublicKey(key) : key);
const asPrivateKey = (key: KeyObject | string) => (typeof key === 'string' ? createPrivateKey(key) : key);

/** A key's id: the first 16 hex digits of the SHA-256 of its SPKI DER, the same on every machine. */
export function updateKeyId(publicKey: KeyObject | string): string {
  const der = asPublicKey(publicKey).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** The exact bytes signed: fixed key order, nothing else. */
export const canonicalManifest = (manifest: UpdateManifest) =>
  Buffer.from(
    JSON.stringify({
      version: manifest.version,
      url: manifest.url,
      size: manifest.size,
      sha256: manifest.sha256,
    }),
  );

const canonicalEndorsement = (endorsement: Pick<KeyEndorsement, 'key_id' | 'public_key'>) =>
  Buffer.from(JSON.stringify({ key_id: endorsement.key_id, public_key: endorsement.public_key }));

export function signManifest(
  manifest: UpdateManifest,
  privateKey: KeyObject | string,
  chain: { key_id?: string; endorsements?: KeyEndorsement[] } = {},
): SignedUpdate {
  const signature = sign(null, canonicalManifest(manifest), asPrivateKey(privateKey)).toString('base64');
  return {
    ...manifest,
    signature,
    ...(chain.key_id ? { key_id: chain.key_id } : {}),
    ...(chain.endorsements?.length ? { endorsements: chain.endorsements } : {}),
  };
}

/** The older key's signature that makes `newerPublicKey` trusted wherever the older one is. */
export function endorseKey(
  newerPublicKey: KeyObject | string,
  olderPrivateKey: KeyObject | string,
): KeyEndorsement {
  const olderPrivate = asPrivateKey(olderPrivateKey);
  const public_key = asPublicKey(newerPublicKey).export({ type: 'spki', format: 'pem' }).toString();
  const key_id = updateKeyId(public_key);
  const signature = sign(null, canonicalEndorsement({ key_id, public_key }), olderPrivate).toString('base64');
  return { key_id, public_key, endorsed_by: updateKeyId(createPublicKey(olderPrivate)), signature };
}

const verifies = (data: Buffer, key: KeyObject, signature: string) => {
  try {
    return verify(null, data, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
};

/** Trusted update keys by id: the configured one, and every key an endorsement added since. */
export type TrustedKeys = Map<string, KeyObject>;

export function trustedKeys(publicKeys: Array<KeyObject | string>): TrustedKeys {
  return new Map(publicKeys.map((key) => [updateKeyId(key), asPublicKey(key)]));
}

/**
 * Why a manifest is refused, or undefined when it is well formed and signed by a trusted key
 * (directly, or by a key an endorsement chain leads to). `trusted` gains the endorsed keys only
 * when the manifest as a whole is accepted: the caller persists what it learned then.
 */
export function manifestProblem(
  update: SignedUpdate,
  trusted: TrustedKeys | KeyObject | string,
): string | undefined {
  if (!VERSION.test(update.version)) return 'the version is not a plain version string';
  if (!/^https?:\/\//.test(update.url)) return 'the artifact URL is not http(s)';
  if (!Number.isSafeInteger(update.size) || update.size <= 0) return 'the size is not a positive integer';
  if (!/^[0-9a-f]{64}$/.test(update.sha256)) return 'the digest is not a SHA-256 hex string';
  const keys = trusted instanceof Map ? trusted : trustedKeys([trusted]);
  const learned = new Map(keys);
  for (const endorsement of update.endorsements ?? []) {
    if (learned.has(endorsement.key_id)) continue;
    const endorser = learned.get(endorsement.endorsed_by);
    if (!endorser) continue;
    let newer: KeyObject;
    try {
      newer = createPublicKey(endorsement.public_key);
    } catch {
      return 'an endorsement carries a key that is not a public key';
    }
    if (updateKeyId(newer) !== endorsement.key_id) return 'an endorsement names its key wrongly';
    if (!verifies(canonicalEndorsement(endorsement), endorser, endorsement.signature))
      return 'an endorsement does not verify with the key it names';
    learned.set(endorsement.key_id, newer);
  }
  const candidates = update.key_id
    ? [learned.get(update.key_id)].filter((key) => key !== undefined)
    : [...learned.values()];
  if (update.key_id && candidates.length === 0)
    return `the manifest is signed by key ${update.key_id}, which this appliance does not trust`;
  if (!candidates.some((key) => verifies(canonicalManifest(update), key, update.signature)))
    return 'the signature does not verify with the update key';
  if (trusted instanceof Map) for (const [id, key] of learned) trusted.set(id, key);
  return undefined;
}
