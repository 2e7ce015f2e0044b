import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/**
 * An over-the-air update as the cloud announces it and the appliance checks it. The cloud signs
 * the manifest (Ed25519) and the manifest pins the artifact's size and SHA-256, so an appliance
 * needs only the cloud's public key to refuse anything the cloud did not publish, wherever the
 * bytes were downloaded from.
 */
export interface UpdateManifest {
  version: string;
  url: string;
  size: number;
  sha256: string;
}

export interface SignedUpdate extends UpdateManifest {
  /** Base64 Ed25519 signature over `canonicalManifest`. */
  signature: string;
}

const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

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

export function signManifest(manifest: UpdateManifest, privateKey: KeyObject | string): SignedUpdate {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const signature = sign(null, canonicalManifest(manifest), key).toString('base64');
  return { ...manifest, signature };
}

/** Why a manifest is refused, or undefined when it is well formed and signed by `publicKey`. */
export function manifestProblem(update: SignedUpdate, publicKey: KeyObject | string): string | undefined {
  if (!VERSION.test(update.version)) return 'the version is not a plain version string';
  if (!/^https?:\/\//.test(update.url)) return 'the artifact URL is not http(s)';
  if (!Number.isSafeInteger(update.size) || update.size <= 0) return 'the size is not a positive integer';
  if (!/^[0-9a-f]{64}$/.test(update.sha256)) return 'the digest is not a SHA-256 hex string';
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  let good = false;
  try {
    good = verify(null, canonicalManifest(update), key, Buffer.from(update.signature, 'base64'));
  } catch {
    good = false;
  }
  return good ? undefined : 'the signature does not verify with the update key';
}
