/**
 * Webhook signatures, both published forms. Senders and receivers share this module so a
 * receiver-side check in tests is the same code a customer would write from the published rules.
 *
 * Form A (subscription interface): `t=<unix seconds>,v1=<hex>` over `<t>.<raw body>` (Stripe's
 * layout, so Stripe's own verifier accepts it). During a secret rotation the header carries one
 * `v1` per secret, the new one first, as Stripe does while an endpoint secret is rolled.
 *
 * Form B (admin interface): exactly one `sha256=<hex>` over `<timestamp>.<payload>`, a value with no
 * room for a list. During a rotation the new secret signs `X-Service-Signature`, and the old one
 * signs `X-Service-Signature-Previous` in the same form, so a receiver holding either secret
 * accepts the delivery and one that reads only the documented header sees a valid value.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignatureCheck {
  valid: boolean;
  timestamp_valid: boolean;
  signature_match: boolean;
}

export const SIGNATURE_HEADER = 'x-service-signature';
/** Form B during a rotation's grace period: the rotated-out secret's signature. */
export const PREVIOUS_SIGNATURE_HEADER = 'x-service-signature-previous';

/** The documented "webhook signature age accepted". */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const FORM_B_VALUE = /^sha256=([0-9a-fA-F]{64})$/;
// Whole seconds only: a millisecond stamp would otherwise read as a date far in the future.
const WHOLE_SECONDS = /^[0-9]{1,15}$/;

const hmacHex = (secret: string, signed: string): string =>
  createHmac('sha256', secret).update(signed, 'utf8').digest('hex');

function requireSecrets(secrets: readonly string[]): void {
  // Signing with no secret would emit a header no receiver can ever accept.
  if (secrets.length === 0) throw new RangeError('at least one signing secret is required');
}

export function formASignature(secrets: readonly string[], unixSeconds: number, rawBody: string): string {
  requireSecrets(secrets);
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError('unixSeconds must be a non-negative whole number');
  }
  const signed = `${unixSeconds}.${rawBody}`;
  const v1 = secrets.map((secret) => `v1=${hmacHex(secret, signed)}`);
  return [`t=${unixSeconds}`, ...v1].join(',');
}

export function formBSignature(secret: string, timestamp: string, payload: string): string {
  // verifyFormB refuses an empty secret, so a header signed with one could never be accepted.
  if (secret.length === 0) throw new RangeError('a signing secret is required');
  return `sha256=${hmacHex(secret, `${timestamp}.${payload}`)}`;
}

/**
 * True when any candidate equals any expected digest. Every pair is compared, in constant time, so
 * the time taken says nothing about which candidate (or how much of it) matched.
 */
function anyDigestMatches(candidates: readonly string[], expected: readonly string[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    if (!HEX_SHA256.test(candidate)) continue;
    const given = Buffer.from(candidate, 'hex');
    for (const hex of expected) {
      const wanted = Buffer.from(hex, 'hex');
      if (given.length === wanted.length && timingSafeEqual(given, wanted)) matched = true;
    }
  }
  return matched;
}

function timestampWithin(raw: string, nowSeconds: number, toleranceSeconds: number): boolean {
  if (!WHOLE_SECONDS.test(raw)) return false;
  const age = nowSeconds - Number(raw);
  // Too old is a replay; too far ahead is a forged or badly skewed stamp. Both are refused.
  return Math.abs(age) <= toleranceSeconds;
}

function check(timestampValid: boolean, signatureMatch: boolean): SignatureCheck {
  return {
    valid: timestampValid && signatureMatch,
    timestamp_valid: timestampValid,
    signature_match: signatureMatch,
  };
}

const NOTHING_VALID = check(false, false);

interface FormAHeader {
  timestamp: string;
  signatures: string[];
}

/** Parses `t=..,v1=..[,v1=..]`; unknown schemes (v0, ...) are ignored as Stripe does. */
function parseFormAHeader(header: string): FormAHeader | undefined {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at < 0) continue;
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (key === 'v1') signatures.push(value);
    if (key !== 't') continue;
    // Two timestamps make it ambiguous which one was signed.
    if (timestamp !== undefined) return undefined;
    timestamp = value;
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

const strings = (values: unknown): values is readonly string[] =>
  Array.isArray(values) && values.every((value) => typeof value === 'string');

export function verifyFormA(
  header: string,
  rawBody: string,
  secrets: readonly string[],
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignatureCheck {
  // Receivers feed this straight from the request: malformed input is a "no", never an exception.
  if (typeof header !== 'string' || typeof rawBody !== 'string' || !strings(secrets)) return NOTHING_VALID;
  const parsed = parseFormAHeader(header);
  if (!parsed) return NOTHING_VALID;
  const signed = `${parsed.timestamp}.${rawBody}`;
  const expected = secrets.filter((secret) => secret.length > 0).map((secret) => hmacHex(secret, signed));
  return check(
    timestampWithin(parsed.timestamp, nowSeconds, toleranceSeconds),
    anyDigestMatches(parsed.signatures, expected),
  );
}

/** What the documented verify-signature call takes, and the receiver's clock. */
type FormBInput = {
  payload: string;
  signature: string;
  timestamp: string;
  secret: string;
  nowSeconds: number;
  toleranceSeconds?: number;
};

/** The one digest of a form B value; anything else (a list, another scheme) has none. */
function formBDigest(signature: string): string[] {
  const match = FORM_B_VALUE.exec(signature.trim());
  return match ? [match[1]!] : [];
}

/** Checks one form B value, as written: `sha256=<hex>`, compared in constant time. */
export function verifyFormB(input: FormBInput): SignatureCheck {
  const { payload, signature, timestamp, secret, nowSeconds } = input;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (![payload, signature, timestamp, secret].every((value) => typeof value === 'string')) {
    return NOTHING_VALID;
  }
  const expected = secret.length > 0 ? [hmacHex(secret, `${timestamp}.${payload}`)] : [];
  return check(
    timestampWithin(timestamp, nowSeconds, tolerance),
    anyDigestMatches(formBDigest(signature), expected),
  );
}

/**
 * A receiver's check of a form B delivery: `X-Service-Signature`, or failing that the
 * `X-Service-Signature-Previous` a delivery carries while a rotated-out secret is still valid, so
 * the receiver may switch to the new secret at any moment of the grace period.
 */
export function verifyFormBDelivery(
  input: FormBInput & { previousSignature?: string | undefined },
): SignatureCheck {
  const { previousSignature, ...current } = input;
  const result = verifyFormB(current);
  if (result.signature_match || previousSignature === undefined) return result;
  return verifyFormB({ ...current, signature: previousSignature });
}
