import { X509Certificate } from 'node:crypto';
import type { ErrorDetail } from '../../shared/http/errors.ts';

/** What a tenant admin copies from the identity provider's setup page or metadata. */
export interface SamlIdpSettings {
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  entryPoint: string;
  /** The IdP's entity ID: the Issuer its assertions carry. */
  idpIssuer: string;
  /** The IdP's signing certificate: PEM, or the bare base64 DER that metadata carries. */
  idpCertificate: string;
}

/** Our side, per tenant: the entity ID the IdP addresses assertions to and where it posts them. */
export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// XML signatures are verified with RSA only (xml-crypto has no ECDSA), so an EC certificate could never verify.
const MIN_RSA_BITS = 2048;

/** Parses the certificate from PEM or bare base64; undefined when the text is not one certificate. */
export function parseIdpCertificate(text: string): X509Certificate | undefined {
  const blocks = [...text.matchAll(PEM_CERTIFICATE)];
  if (blocks.length > 1) return undefined;
  const body = (blocks[0]?.[1] ?? text).replace(/\s+/g, '');
  if (!BASE64.test(body)) return undefined;
  try {
    return new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    return undefined;
  }
}

function certificateProblem(text: string): string | undefined {
  if (/PRIVATE KEY/.test(text)) return "is a private key: paste the identity provider's certificate instead";
  if ([...text.matchAll(PEM_CERTIFICATE)].length > 1)
    return 'holds several certificates: paste only the signing one';
  const certificate = parseIdpCertificate(text);
  if (!certificate) return 'is not an X.509 certificate (PEM, or base64 DER)';
  const key = certificate.publicKey;
  if (key.asymmetricKeyType !== 'rsa') return 'must hold an RSA public key';
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) return `has a ${bits}-bit RSA key; at least ${MIN_RSA_BITS} bits are required`;
  return undefined;
}

function urlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'is not a URL';
  const { protocol } = new URL(text);
  if (protocol !== 'https:' && protocol !== 'http:') return 'must be an https or http URL';
  return undefined;
}

function identifierProblem(text: string): string | undefined {
  if (text.trim().length === 0) return 'is required';
  if (text.trim() !== text) return 'must not start or end with spaces';
  if (text.length > 1024) return 'must be at most 1024 characters';
  return undefined;
}

const problems = (checks: Array<[string, string | undefined]>): ErrorDetail[] =>
  checks.flatMap(([field, message]) => (message ? [{ field, message }] : []));

/** Field-level problems with an IdP's settings, empty when they are usable; for an admin endpoint to return. */
export function checkSamlIdpSettings(settings: SamlIdpSettings): ErrorDetail[] {
  return problems([
    ['entryPoint', urlProblem(settings.entryPoint)],
    ['idpIssuer', identifierProblem(settings.idpIssuer)],
    ['idpCertificate', certificateProblem(settings.idpCertificate)],
  ]);
}

export function checkServiceProvider(sp: SamlServiceProvider): ErrorDetail[] {
  return problems([
    ['entityId', identifierProblem(sp.entityId)],
    ['acsUrl', urlProblem(sp.acsUrl)],
  ]);
}
