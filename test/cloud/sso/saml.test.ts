import { webcrypto } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkSamlIdpSettings,
  createSamlClient,
  SamlRejected,
  type SamlRejectReason,
} from '../../../cloud/sso/saml.ts';
import { EC_P256, x509 } from '../../../shared/devices/x509.ts';
import {
  type AssertionSpec,
  createTestIdp,
  decodeSamlResponse,
  firstSignatureVerifies,
  PERSISTENT_NAME_ID,
  type TestIdp,
  WRAPPING_VARIANTS,
  type WrappingVariant,
} from '../../support/saml-idp.ts';

const SP = {
  entityId: 'https://cloud.example.test/sso/saml/acme',
  acsUrl: 'https://cloud.example.test/sso/saml/acme/acs',
};
const REQUEST_ID = '_4f1c0a9e2b7d4e6f8a1b3c5d7e9f0a2b';
const ATTACKER = { nameId: 'mallory@evil.test', email: 'mallory@evil.test' };

let idp: TestIdp;
let impostor: TestIdp;

beforeAll(async () => {
  // The impostor claims the same entity ID but signs with a key of its own.
  [idp, impostor] = await Promise.all([createTestIdp(), createTestIdp()]);
});

const spec = (overrides: Partial<AssertionSpec> = {}): AssertionSpec => ({
  audience: SP.entityId,
  recipient: SP.acsUrl,
  nameId: 'ada@acme.test',
  inResponseTo: REQUEST_ID,
  ...overrides,
});

const client = (options?: { clockSkewMs?: number }) => createSamlClient(idp.settings, SP, options);

async function rejectionOf(samlResponse: string): Promise<SamlRejected> {
  const outcome = await client()
    .validate(samlResponse)
    .then(
      (identity) => ({ identity }),
      (error: unknown) => ({ error }),
    );
  if (!('error' in outcome)) throw new Error(`accepted as ${JSON.stringify(outcome.identity)}`);
  expect(outcome.error).toBeInstanceOf(SamlRejected);
  return outcome.error as SamlRejected;
}

const reasonOf = async (samlResponse: string): Promise<SamlRejectReason> =>
  (await rejectionOf(samlResponse)).reason;

describe('SAML response validation', () => {
  it('accepts a signed assertion and returns who it names, the signed InResponseTo included', async () => {
    const response = idp.signedResponse(
      spec({
        sessionIndex: '_session-7',
        attributes: { displayName: 'Ada Lovelace', groups: ['ops', 'hq'] },
      }),
    );
    const identity = await client().validate(response);

    expect(identity).toMatchObject({
      nameId: 'ada@acme.test',
      nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      email: 'ada@acme.test',
      displayName: 'Ada Lovelace',
      issuer: idp.entityId,
      inResponseTo: REQUEST_ID,
      sessionIndex: '_session-7',
      attributes: { displayName: 'Ada Lovelace', groups: ['ops', 'hq'] },
    });
    const assertionId = /<saml:Assertion [^>]*ID="([^"]+)"/.exec(decodeSamlResponse(response))?.[1];
    expect(identity.assertionId).toBe(assertionId);
    expect(identity.notOnOrAfter.getTime()).toBeGreaterThan(Date.now());
  });

  it('takes the email from a common attribute when the NameID is not an email address', async () => {
    const claim = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
    const azure = spec({
      nameId: 'a1b2c3',
      nameIdFormat: PERSISTENT_NAME_ID,
      attributes: { [claim]: 'ada@acme.test' },
    });
    const viaClaim = await client().validate(idp.signedResponse(azure));
    expect(viaClaim).toMatchObject({ nameId: 'a1b2c3', email: 'ada@acme.test' });

    const viaMail = await client().validate(
      idp.signedResponse({ ...azure, attributes: { mail: 'grace@acme.test' } }),
    );
    expect(viaMail.email).toBe('grace@acme.test');

    const none = await client().validate(idp.signedResponse({ ...azure, attributes: {} }));
    expect(none.email).toBeUndefined();
  });

  it('accepts the certificate as bare base64, and a response signed around the signed assertion', async () => {
    const bare = createSamlClient({ ...idp.settings, idpCertificate: idp.certificateBase64 }, SP);
    expect((await bare.validate(idp.signedResponse(spec()))).nameId).toBe('ada@acme.test');
    expect((await client().validate(idp.signedResponse(spec({ signResponse: true })))).nameId).toBe(
      'ada@acme.test',
    );
  });

  it('returns no InResponseTo for an IdP-initiated login, leaving the caller to refuse or allow it', async () => {
    const identity = await client().validate(idp.signedResponse(spec({ inResponseTo: undefined })));
    expect(identity.inResponseTo).toBeUndefined();
  });

  it('refuses an unsigned assertion', async () => {
    const rejection = await rejectionOf(idp.unsignedResponse(spec()));
    expect(rejection.reason).toBe('not_signed');
    expect(rejection.status).toBe(401);
    expect((rejection.cause as Error).message).toMatch(/Invalid signature/);
  });

  it('refuses a response whose only signature is on the Response, not on the assertion', async () => {
    expect(await reasonOf(idp.signedResponse(spec({ signAssertion: false, signResponse: true })))).toBe(
      'signature_invalid',
    );
  });

  describe('signature wrapping: a valid signature over A with an unsigned assertion for B smuggled in', () => {
    // Where the original signature still verifies for a naive verifier, the attack is a real one.
    const naivelyValid: WrappingVariant[] = [
      'evil-sibling-before',
      'evil-sibling-after',
      'signed-moved-into-extensions',
      'evil-wraps-signed',
      'signed-moved-into-signature-object',
    ];

    it.each(WRAPPING_VARIANTS)('%s is refused, never read as the attacker', async (variant) => {
      const forged = idp.wrappedResponse(spec(), ATTACKER, variant);
      expect(decodeSamlResponse(forged)).toContain(ATTACKER.nameId);
      if (naivelyValid.includes(variant))
        expect(firstSignatureVerifies(forged, idp.certificatePem)).toBe(true);

      const rejection = await rejectionOf(forged);
      expect(rejection.reason).toBe('signature_invalid');
    });

    it('reads a NameID split by a comment as the whole signed value, not the part before the comment', async () => {
      const signedFor = 'ada@acme.test.evil.test';
      const forged = idp.commentInjectedResponse(spec({ nameId: signedFor }), 'ada@acme.test');
      expect(firstSignatureVerifies(forged, idp.certificatePem)).toBe(true);
      const identity = await client().validate(forged);
      expect(identity.nameId).toBe(signedFor);
      expect(identity.email).toBe(signedFor);
    });
  });

  it('refuses an assertion signed by another key, even with that key certificate in KeyInfo', async () => {
    const forged = impostor.signedResponse(spec());
    expect(decodeSamlResponse(forged)).toContain('<ds:X509Certificate>');
    expect(await reasonOf(forged)).toBe('signature_invalid');
  });

  it('refuses an assertion whose NameID was changed after signing', async () => {
    expect(await reasonOf(idp.tamperedNameIdResponse(spec(), ATTACKER.nameId))).toBe('signature_invalid');
  });

  it('refuses an expired assertion', async () => {
    const rejection = await rejectionOf(idp.expiredResponse(spec()));
    expect(rejection.reason).toBe('expired');
    expect((rejection.cause as Error).message).toMatch(/expired/);
  });

  it('refuses an expired bearer confirmation even when the Conditions carry no times', async () => {
    // node-saml ignores SubjectConfirmationData when it does not validate InResponseTo itself.
    const response = idp.signedResponse(
      spec({ conditionTimes: false, subjectNotOnOrAfterOffsetMs: -60_000 }),
    );
    expect(await reasonOf(response)).toBe('expired');
  });

  it('refuses an assertion that is not valid yet, beyond the clock skew', async () => {
    const early = spec({ notBeforeOffsetMs: 60_000, notOnOrAfterOffsetMs: 360_000 });
    expect(await reasonOf(idp.signedResponse(early))).toBe('not_yet_valid');

    const slightlyEarly = spec({ notBeforeOffsetMs: 1_000 });
    expect((await client({ clockSkewMs: 5_000 }).validate(idp.signedResponse(slightlyEarly))).nameId).toBe(
      'ada@acme.test',
    );
    expect(await reasonOf(idp.signedResponse({ ...slightlyEarly, notBeforeOffsetMs: 30_000 }))).toBe(
      'not_yet_valid',
    );
  });

  it('refuses an assertion for another audience', async () => {
    const rejection = await rejectionOf(idp.wrongAudienceResponse(spec()));
    expect(rejection.reason).toBe('audience_mismatch');
    expect((rejection.cause as Error).message).toMatch(/audience mismatch/);
  });

  it('refuses an assertion meant for another ACS URL', async () => {
    const response = idp.signedResponse(spec({ recipient: 'https://cloud.example.test/sso/saml/other/acs' }));
    expect(await reasonOf(response)).toBe('recipient_mismatch');
  });

  it('refuses an assertion from another issuer, even one signed with the pinned key', async () => {
    expect(await reasonOf(idp.signedResponse(spec({ issuer: 'https://other-idp.example.test' })))).toBe(
      'issuer_mismatch',
    );
  });

  it('refuses a Response whose InResponseTo differs from the signed assertion', async () => {
    const response = idp.signedResponse(spec({ responseInResponseTo: '_someone-elses-request' }));
    expect(await reasonOf(response)).toBe('in_response_to_mismatch');
  });

  it('refuses SHA-1 signatures', async () => {
    expect(await reasonOf(idp.signedResponse(spec({ algorithm: 'sha1' })))).toBe('weak_algorithm');
  });

  it("reports the IdP's own error status", async () => {
    const rejection = await rejectionOf(idp.errorResponse(SP.acsUrl, REQUEST_ID));
    expect(rejection.reason).toBe('idp_error');
    expect((rejection.cause as Error).message).toMatch(/Responder error: AuthnFailed/);
  });

  it.each([
    ['an empty string', ''],
    ['text that is not base64', 'not base64 at all!'],
    ['base64 of something that is not XML', Buffer.from('hello, world').toString('base64')],
    ['base64 of truncated XML', Buffer.from('<samlp:Response xmlns:samlp="x"><a>').toString('base64')],
    [
      'an XML document with a DTD',
      Buffer.from('<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>').toString('base64'),
    ],
  ])('refuses %s as malformed', async (_name, input) => {
    expect(await reasonOf(input)).toBe('malformed');
  });
});

describe('authorization URL', () => {
  const inflate = (url: URL) =>
    inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');

  it('sends the browser to the IdP with a deflated AuthnRequest whose ID it returns', async () => {
    const { url, requestId } = await client().authorizationUrl('state-123');
    const target = new URL(url);

    expect(`${target.origin}${target.pathname}`).toBe(idp.ssoUrl);
    expect(target.searchParams.get('RelayState')).toBe('state-123');
    const request = inflate(target);
    expect(request).toContain(`ID="${requestId}"`);
    expect(request).toContain(`AssertionConsumerServiceURL="${SP.acsUrl}"`);
    expect(request).toContain(`Destination="${idp.ssoUrl}"`);
    expect(request).toMatch(new RegExp(`<saml:Issuer[^>]*>${SP.entityId}</saml:Issuer>`));
    expect(request).not.toContain('RequestedAuthnContext');
    expect(requestId).toMatch(/^_[0-9a-f]{40}$/);
  });

  it('gives every request its own ID, also when asked concurrently', async () => {
    const saml = client();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => saml.authorizationUrl(`s${i}`)));
    for (const { url, requestId } of results) expect(inflate(new URL(url))).toContain(`ID="${requestId}"`);
    expect(new Set(results.map((r) => r.requestId)).size).toBe(5);
  });

  it('refuses a RelayState longer than the binding allows', async () => {
    await expect(client().authorizationUrl('x'.repeat(81))).rejects.toThrow(RangeError);
  });
});

describe('IdP settings', () => {
  it('accepts what an admin copies from an IdP: PEM or bare base64', () => {
    expect(checkSamlIdpSettings(idp.settings)).toEqual([]);
    expect(checkSamlIdpSettings({ ...idp.settings, idpCertificate: idp.certificateBase64 })).toEqual([]);
  });

  it('names each field that is wrong', () => {
    const problems = checkSamlIdpSettings({
      entryPoint: 'ftp://idp.example.test/sso',
      idpIssuer: ' ',
      idpCertificate: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA',
    });
    expect(problems.map((p) => p.field)).toEqual(['entryPoint', 'idpIssuer', 'idpCertificate']);
    expect(checkSamlIdpSettings({ ...idp.settings, entryPoint: 'not a url' })).toEqual([
      { field: 'entryPoint', message: 'is not a URL' },
    ]);
  });

  it('refuses a private key, several certificates, or a key that cannot sign XML here', async () => {
    const certificateProblem = (idpCertificate: string) =>
      checkSamlIdpSettings({ ...idp.settings, idpCertificate })[0]?.message;
    const privateKey = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n';
    expect(certificateProblem(privateKey)).toMatch(/private key/);
    expect(certificateProblem(`${idp.certificatePem}\n${impostor.certificatePem}`)).toMatch(/several/);

    const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const ec = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=EC IdP',
      keys,
      signingAlgorithm: EC_P256,
    });
    expect(certificateProblem(ec.toString('pem'))).toMatch(/RSA/);
  });

  it('will not build a client from bad settings or a clock skew node-saml reads as "skip the checks"', () => {
    expect(() => createSamlClient({ ...idp.settings, idpCertificate: 'nope' }, SP)).toThrow(/idpCertificate/);
    expect(() => createSamlClient(idp.settings, { ...SP, acsUrl: '/acs' })).toThrow(/acsUrl/);
    expect(() => createSamlClient(idp.settings, SP, { clockSkewMs: -1 })).toThrow(RangeError);
  });
});
