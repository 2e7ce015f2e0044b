/**
 * The wire of device enrolment and renewal, for the cloud that answers and the devices and
 * appliances that call (`POST /v1/mdm/enroll`, `POST /v1/mdm/devices/{id}/renew`). A device makes
 * its key pair itself and sends only a PKCS#10 CSR: its private key never leaves it.
 */
import { Buffer } from 'node:buffer';
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';

const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 16_384, description });

export const EnrolRequestSchema = Type.Object(
  {
    enrollment_token: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the one-time token shown when the device was registered',
    }),
    csr: Pem('PKCS#10 certificate request (PEM), ECDSA P-256, signed by the new key'),
  },
  { additionalProperties: false },
);
export type EnrolRequest = Static<typeof EnrolRequestSchema>;

export const RenewRequestSchema = Type.Object(
  {
    csr: Pem('PKCS#10 certificate request (PEM) for a new key'),
    certificate: Pem('the device’s current certificate (PEM)'),
    signature: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'base64 ECDSA-SHA256 signature over the CSR’s DER bytes with the current certificate’s key (DER as openssl writes it, or raw r||s as WebCrypto does)',
    }),
  },
  { additionalProperties: false },
);
export type RenewRequest = Static<typeof RenewRequestSchema>;

export const IssuedCertificateSchema = Type.Object({
  device_id: Type.String(),
  tenant_id: Type.String(),
  location_id: Type.String(),
  device_type: Type.String(),
  serial: Type.String({ description: 'hexadecimal, lower case' }),
  certificate: Type.String({ description: 'PEM' }),
  ca_certificate: Type.String({ description: 'PEM of the device CA, to check the broker and the cloud' }),
  expires_at: Type.String({ format: 'date-time' }),
  sync_credential: Type.Optional(
    Type.String({
      description: 'appliances only, at enrolment: the sync and fleet-link credential, shown once',
    }),
  ),
});
export type IssuedCertificate = Static<typeof IssuedCertificateSchema>;

/** The DER bytes of a PEM block (the first one), which is what a renewal signature covers. */
export function pemToDer(pem: string): Buffer {
  const body = pem.replace(/-----(BEGIN|END) [A-Z0-9 ]+-----/g, '').replace(/\s+/g, '');
  return Buffer.from(body, 'base64');
}

/** A device's renewal proof: its current key signs the new CSR. */
export const renewalSignature = (csrPem: string, currentKey: KeyObject) =>
  sign('sha256', pemToDer(csrPem), currentKey).toString('base64');

/** Whether `signature` over `csrDer` was made by the key of `certificatePublicKeyDer` (SPKI). */
export function verifyRenewalSignature(csrDer: Uint8Array, publicKeySpki: Uint8Array, signature: string) {
  const key = createPublicKey({ key: Buffer.from(publicKeySpki), format: 'der', type: 'spki' });
  const bytes = Buffer.from(signature, 'base64');
  const encodings: Array<'der' | 'ieee-p1363'> = bytes.length === 64 ? ['ieee-p1363', 'der'] : ['der'];
  return encodings.some((dsaEncoding) => {
    try {
      return verify('sha256', csrDer, { key, dsaEncoding }, bytes);
    } catch {
      return false;
    }
  });
}
