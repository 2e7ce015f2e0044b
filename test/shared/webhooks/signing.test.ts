import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  formASignature,
  formBSignature,
  verifyFormA,
  verifyFormB,
  verifyFormBDelivery,
} from '../../../shared/webhooks/signing.ts';

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z, a fixed clock for every check
const NEW_SECRET = 'whsec_new_0123456789abcdef';
const OLD_SECRET = 'whsec_old_fedcba9876543210';
const body = JSON.stringify({ id: 'evt_1', type: 'order.created', data: { id: 'ord_1' } });

const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
const ALL_VALID = { valid: true, timestamp_valid: true, signature_match: true };

/** Stripe's verifier, told the fixed clock (receivedAt is in milliseconds). */
const stripeAccepts = (header: string, secret: string, verifier = Stripe.webhooks) =>
  verifier.constructEvent(body, header, secret, 300, undefined, NOW * 1000);

describe('form A, checked by Stripe', () => {
  it('produces a header Stripe accepts', () => {
    const header = formASignature([NEW_SECRET], NOW, body);
    expect(header).toBe(`t=${NOW},v1=${hmac(NEW_SECRET, `${NOW}.${body}`)}`);
    expect(stripeAccepts(header, NEW_SECRET).id).toBe('evt_1');
  });

  it('during a rotation carries one v1 per secret, each accepted by Stripe', () => {
    const header = formASignature([NEW_SECRET, OLD_SECRET], NOW, body);
    expect(header.split(',')).toHaveLength(3);
    const instance = new Stripe('sk_test_x');
    for (const secret of [NEW_SECRET, OLD_SECRET]) {
      expect(stripeAccepts(header, secret).type).toBe('order.created');
      expect(stripeAccepts(header, secret, instance.webhooks).type).toBe('order.created');
    }
  });

  it('is refused by Stripe under a wrong secret or a changed body', () => {
    const header = formASignature([NEW_SECRET, OLD_SECRET], NOW, body);
    expect(() => stripeAccepts(header, 'whsec_someone_else')).toThrow(/signature/i);
    const tampered = formASignature([NEW_SECRET], NOW, `${body} `);
    expect(() => stripeAccepts(tampered, NEW_SECRET)).toThrow(/signature/i);
  });

  it('refuses to sign without a secret or with a fractional time', () => {
    expect(() => formASignature([], NOW, body)).toThrow(RangeError);
    expect(() => formASignature([NEW_SECRET], NOW + 0.5, body)).toThrow(RangeError);
  });
});

describe('verifyFormA', () => {
  const header = (at = NOW, secrets = [NEW_SECRET, OLD_SECRET]) => formASignature(secrets, at, body);

  it('accepts a rotation header with either secret', () => {
    expect(verifyFormA(header(), body, [OLD_SECRET], NOW)).toEqual(ALL_VALID);
    expect(verifyFormA(header(), body, [NEW_SECRET], NOW)).toEqual(ALL_VALID);
  });

  it('accepts a header signed by one secret when the receiver holds several', () => {
    expect(verifyFormA(header(NOW, [OLD_SECRET]), body, [NEW_SECRET, OLD_SECRET], NOW).valid).toBe(true);
  });

  it('keeps the timestamp inside the tolerance, both ways', () => {
    expect(verifyFormA(header(NOW - 299), body, [NEW_SECRET], NOW).valid).toBe(true);
    expect(verifyFormA(header(NOW - 300), body, [NEW_SECRET], NOW).valid).toBe(true);
    expect(verifyFormA(header(NOW - 301), body, [NEW_SECRET], NOW)).toEqual({
      valid: false,
      timestamp_valid: false,
      signature_match: true,
    });
    expect(verifyFormA(header(NOW + 299), body, [NEW_SECRET], NOW).valid).toBe(true);
    expect(verifyFormA(header(NOW + 301), body, [NEW_SECRET], NOW).timestamp_valid).toBe(false);
    expect(verifyFormA(header(NOW - 20), body, [NEW_SECRET], NOW, 10).timestamp_valid).toBe(false);
  });

  it('rejects millisecond and fractional timestamps', () => {
    const ms = NOW * 1000;
    const signedMs = `t=${ms},v1=${hmac(NEW_SECRET, `${ms}.${body}`)}`;
    expect(verifyFormA(signedMs, body, [NEW_SECRET], NOW)).toEqual({
      valid: false,
      timestamp_valid: false,
      signature_match: true,
    });
    const fractional = `t=${NOW}.5,v1=${hmac(NEW_SECRET, `${NOW}.5.${body}`)}`;
    expect(verifyFormA(fractional, body, [NEW_SECRET], NOW).timestamp_valid).toBe(false);
  });

  it('reports a mismatch for a wrong secret, a changed body or a truncated signature', () => {
    expect(verifyFormA(header(), body, ['whsec_other'], NOW)).toEqual({
      valid: false,
      timestamp_valid: true,
      signature_match: false,
    });
    expect(verifyFormA(header(), `${body} `, [NEW_SECRET], NOW).signature_match).toBe(false);
    expect(verifyFormA(header(NOW, [NEW_SECRET]).slice(0, -2), body, [NEW_SECRET], NOW).signature_match).toBe(
      false,
    );
    expect(verifyFormA(header(), body, [], NOW).signature_match).toBe(false);
    expect(verifyFormA(header(), body, [''], NOW).signature_match).toBe(false);
  });

  it('never throws on malformed headers', () => {
    const digest = hmac(NEW_SECRET, `${NOW}.${body}`);
    const malformed = [
      '',
      ',,,',
      't=',
      `v1=${digest}`,
      `t=${NOW}`,
      `t=${NOW},v0=${digest}`,
      `t=${NOW},t=${NOW},v1=${digest}`,
      `t=${NOW},v1=${'zz'.repeat(32)}`,
      `t=abc,v1=${digest}`,
      `t=-${NOW},v1=${digest}`,
    ];
    for (const value of malformed) expect(verifyFormA(value, body, [NEW_SECRET], NOW).valid).toBe(false);
    const loose = verifyFormA as (...args: unknown[]) => unknown;
    expect(loose(undefined, body, [NEW_SECRET], NOW)).toMatchObject({ valid: false });
    expect(loose(header(), null, [NEW_SECRET], NOW)).toMatchObject({ valid: false });
    expect(loose(header(), body, 'not-a-list', NOW)).toMatchObject({ valid: false });
  });
});

describe('form B, checked with node:crypto', () => {
  const timestamp = String(NOW);
  const input = (overrides: Partial<Parameters<typeof verifyFormB>[0]> = {}) => ({
    payload: body,
    signature: formBSignature(NEW_SECRET, timestamp, body),
    timestamp,
    secret: NEW_SECRET,
    nowSeconds: NOW,
    ...overrides,
  });

  it('signs `<timestamp>.<payload>` with HMAC-SHA256 as exactly one `sha256=<hex>`', () => {
    expect(formBSignature(NEW_SECRET, timestamp, body)).toBe(`sha256=${hmac(NEW_SECRET, `${NOW}.${body}`)}`);
    expect(() => formBSignature('', timestamp, body)).toThrow(RangeError);
  });

  it('accepts its own signature and a receiver-computed one', () => {
    expect(verifyFormB(input())).toEqual(ALL_VALID);
    const computed = `sha256=${hmac(OLD_SECRET, `${NOW}.${body}`)}`;
    expect(verifyFormB(input({ signature: computed, secret: OLD_SECRET }))).toEqual(ALL_VALID);
    const upperHex = `sha256=${hmac(OLD_SECRET, `${NOW}.${body}`).toUpperCase()}`;
    expect(verifyFormB(input({ signature: upperHex, secret: OLD_SECRET })).valid).toBe(true);
  });

  it('takes one value as the spec writes it, never a list', () => {
    const current = formBSignature(NEW_SECRET, timestamp, body);
    const old = formBSignature(OLD_SECRET, timestamp, body);
    for (const signature of [
      `${current},${old}`,
      `${old},${current}`,
      `sha256=${'0'.repeat(64)}, ${current}`,
    ]) {
      expect(verifyFormB(input({ signature }))).toMatchObject({ valid: false, signature_match: false });
    }
    expect(verifyFormB(input({ signature: current.replace('sha256=', 'SHA256=') })).signature_match).toBe(
      false,
    );
  });

  it('keeps the timestamp within 300 s of now, both ways', () => {
    const at = (seconds: number) => {
      const stamp = String(seconds);
      return input({ timestamp: stamp, signature: formBSignature(NEW_SECRET, stamp, body) });
    };
    expect(verifyFormB(at(NOW - 299)).valid).toBe(true);
    expect(verifyFormB(at(NOW - 301))).toEqual({
      valid: false,
      timestamp_valid: false,
      signature_match: true,
    });
    expect(verifyFormB(at(NOW + 299)).valid).toBe(true);
    expect(verifyFormB(at(NOW + 301)).timestamp_valid).toBe(false);
    expect(verifyFormB({ ...at(NOW - 20), toleranceSeconds: 10 }).timestamp_valid).toBe(false);
    expect(verifyFormB(at(NOW * 1000)).timestamp_valid).toBe(false);
  });

  it('rejects timestamps that are not whole Unix seconds', () => {
    for (const stamp of ['', ' 1767225600', '1767225600.0', '1.7e9', '-1767225600', '0x69553e00', 'now']) {
      const signature = formBSignature(NEW_SECRET, stamp, body);
      expect(verifyFormB(input({ timestamp: stamp, signature })).timestamp_valid).toBe(false);
    }
  });

  it('reports mismatches and malformed signatures without throwing', () => {
    expect(verifyFormB(input({ secret: 'other' }))).toEqual({
      valid: false,
      timestamp_valid: true,
      signature_match: false,
    });
    expect(verifyFormB(input({ payload: `${body} ` })).signature_match).toBe(false);
    for (const signature of ['', 'sha256=', hmac(NEW_SECRET, `${NOW}.${body}`), 'sha1=abc', 'sha256=zz,,']) {
      expect(verifyFormB(input({ signature }))).toMatchObject({ valid: false, signature_match: false });
    }
    expect(verifyFormB(input({ secret: '' })).signature_match).toBe(false);
    const loose = verifyFormB as (input: Record<string, unknown>) => unknown;
    expect(loose({ ...input(), signature: undefined })).toMatchObject({ valid: false });
    expect(loose({ ...input(), timestamp: NOW })).toMatchObject({ valid: false });
  });
});

describe('verifyFormBDelivery, a receiver across a rotation', () => {
  const timestamp = String(NOW);
  const signature = formBSignature(NEW_SECRET, timestamp, body);
  const previousSignature = formBSignature(OLD_SECRET, timestamp, body);
  const delivery = { payload: body, timestamp, signature, nowSeconds: NOW };

  it('accepts with the new secret on X-Service-Signature, or the old on X-Service-Signature-Previous', () => {
    expect(verifyFormBDelivery({ ...delivery, previousSignature, secret: NEW_SECRET })).toEqual(ALL_VALID);
    expect(verifyFormBDelivery({ ...delivery, previousSignature, secret: OLD_SECRET })).toEqual(ALL_VALID);
  });

  it('refuses the old secret once the previous signature is gone, and any other secret', () => {
    expect(verifyFormBDelivery({ ...delivery, secret: OLD_SECRET }).signature_match).toBe(false);
    expect(verifyFormBDelivery({ ...delivery, previousSignature, secret: 'whsec_other' }).valid).toBe(false);
  });

  it('still refuses a stale timestamp whichever header matched', () => {
    const stamp = String(NOW - 301);
    const stale = {
      payload: body,
      timestamp: stamp,
      signature: formBSignature(NEW_SECRET, stamp, body),
      previousSignature: formBSignature(OLD_SECRET, stamp, body),
      nowSeconds: NOW,
    };
    expect(verifyFormBDelivery({ ...stale, secret: OLD_SECRET })).toEqual({
      valid: false,
      timestamp_valid: false,
      signature_match: true,
    });
  });
});
