import { randomBytes, webcrypto } from 'node:crypto';
import { DOMParser, type Document, type Element, type Node, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import type { SamlIdpSettings } from '../../cloud/sso/saml.ts';
import { x509 } from '../../shared/devices/x509.ts';

/**
 * A SAML identity provider for tests: a self-signed RSA certificate made at run time, and SAML
 * Responses signed the way real IdPs sign them (exclusive c14n, enveloped signature, RSA-SHA256,
 * KeyInfo carrying the certificate), plus the forgeries a service provider must refuse.
 */

const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
};
export const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
export const PERSISTENT_NAME_ID = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

const ALGORITHMS = {
  sha256: {
    signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    digest: 'http://www.w3.org/2001/04/xmlenc#sha256',
  },
  sha1: {
    signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
    digest: 'http://www.w3.org/2000/09/xmldsig#sha1',
  },
} as const;

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};
const DAY = 24 * 60 * 60 * 1000;

export interface AssertionSpec {
  audience: string;
  /** The ACS URL: SubjectConfirmationData Recipient and Response Destination. */
  recipient: string;
  nameId: string;
  nameIdFormat?: string;
  /** On the SubjectConfirmationData and, unless `responseInResponseTo` says otherwise, on the Response. */
  inResponseTo?: string;
  responseInResponseTo?: string | null;
  email?: string;
  attributes?: Record<string, string | string[]>;
  /** Defaults to the IdP's entity ID. */
  issuer?: string;
  /** Offsets from now for Conditions NotBefore / NotOnOrAfter; `conditionTimes: false` leaves both out. */
  notBeforeOffsetMs?: number;
  notOnOrAfterOffsetMs?: number;
  conditionTimes?: boolean;
  /** The bearer SubjectConfirmationData's NotOnOrAfter; defaults to `notOnOrAfterOffsetMs`. */
  subjectNotOnOrAfterOffsetMs?: number;
  sessionIndex?: string;
  signAssertion?: boolean;
  signResponse?: boolean;
  algorithm?: keyof typeof ALGORITHMS;
}

/** Ways of hiding an unsigned assertion for B next to, around or instead of a signed one for A. */
export const WRAPPING_VARIANTS = [
  'evil-sibling-before',
  'evil-sibling-after',
  'signed-moved-into-extensions',
  'evil-wraps-signed',
  'signed-moved-into-signature-object',
  'evil-takes-signed-id',
] as const;
export type WrappingVariant = (typeof WRAPPING_VARIANTS)[number];

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const newId = () => `_${randomBytes(16).toString('hex')}`;
const toBase64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const serialize = (node: Node) => new XMLSerializer().serializeToString(node);

function attributeXml(name: string, values: string | string[]) {
  const list = Array.isArray(values) ? values : [values];
  const valueXml = list.map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`);
  return `<saml:Attribute Name="${escapeXml(name)}">${valueXml.join('')}</saml:Attribute>`;
}

function assertionXml(spec: AssertionSpec, issuer: string, id: string) {
  const attributes = { ...(spec.email ? { email: spec.email } : {}), ...spec.attributes };
  const conditionTimes =
    spec.conditionTimes === false
      ? ''
      : ` NotBefore="${iso(spec.notBeforeOffsetMs ?? -30_000)}" NotOnOrAfter="${iso(spec.notOnOrAfterOffsetMs ?? 300_000)}"`;
  const subjectNotOnOrAfter = iso(spec.subjectNotOnOrAfterOffsetMs ?? spec.notOnOrAfterOffsetMs ?? 300_000);
  const inResponseTo = spec.inResponseTo ? ` InResponseTo="${escapeXml(spec.inResponseTo)}"` : '';
  const statements = Object.entries(attributes).map(([name, values]) => attributeXml(name, values));
  return [
    `<saml:Assertion xmlns:saml="${NS.assertion}" ID="${id}" Version="2.0" IssueInstant="${iso(0)}">`,
    `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>`,
    '<saml:Subject>',
    `<saml:NameID Format="${spec.nameIdFormat ?? EMAIL_NAME_ID}">${escapeXml(spec.nameId)}</saml:NameID>`,
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${subjectNotOnOrAfter}" Recipient="${escapeXml(spec.recipient)}"/>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions${conditionTimes}>`,
    `<saml:AudienceRestriction><saml:Audience>${escapeXml(spec.audience)}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="${escapeXml(spec.sessionIndex ?? newId())}">`,
    '<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>',
    '</saml:AuthnStatement>',
    statements.length > 0 ? `<saml:AttributeStatement>${statements.join('')}</saml:AttributeStatement>` : '',
    '</saml:Assertion>',
  ].join('');
}

function responseXml(spec: AssertionSpec, issuer: string, assertion: string) {
  const inResponseTo =
    spec.responseInResponseTo === null ? undefined : (spec.responseInResponseTo ?? spec.inResponseTo);
  const inResponseToAttribute = inResponseTo ? ` InResponseTo="${escapeXml(inResponseTo)}"` : '';
  return [
    `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${newId()}" Version="2.0"`,
    ` IssueInstant="${iso(0)}" Destination="${escapeXml(spec.recipient)}"${inResponseToAttribute}>`,
    `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>`,
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>',
    assertion,
    '</samlp:Response>',
  ].join('');
}

export async function createTestIdp(options: { entityId?: string; ssoUrl?: string } = {}) {
  const entityId = options.entityId ?? 'https://idp.example.test/saml/metadata';
  const ssoUrl = options.ssoUrl ?? 'https://idp.example.test/saml/sso';
  const keys = (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '4'),
    name: 'CN=Test SAML IdP',
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: RSA,
  });
  const certificatePem = certificate.toString('pem');
  const privateKeyPem = x509.PemConverter.encode(
    await webcrypto.subtle.exportKey('pkcs8', keys.privateKey),
    'PRIVATE KEY',
  );

  /** Signs the element with this ID, placing the signature right after its Issuer, as the schema wants. */
  function sign(xml: string, id: string, algorithm: keyof typeof ALGORITHMS = 'sha256') {
    const signer = new SignedXml({
      privateKey: privateKeyPem,
      publicCert: certificatePem,
      signatureAlgorithm: ALGORITHMS[algorithm].signature,
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    signer.addReference({
      xpath: `//*[@ID='${id}']`,
      transforms: [
        'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
        'http://www.w3.org/2001/10/xml-exc-c14n#',
      ],
      digestAlgorithm: ALGORITHMS[algorithm].digest,
    });
    signer.computeSignature(xml, {
      prefix: 'ds',
      location: { reference: `//*[@ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' },
    });
    return signer.getSignedXml();
  }

  /** The Response as XML, signed as the spec says (by default: the assertion only). */
  function responseDocument(spec: AssertionSpec) {
    const issuer = spec.issuer ?? entityId;
    const assertionId = newId();
    let assertion = assertionXml(spec, issuer, assertionId);
    if (spec.signAssertion ?? true) assertion = sign(assertion, assertionId, spec.algorithm);
    const response = responseXml(spec, issuer, assertion);
    if (!spec.signResponse) return response;
    const responseId = parse(response).documentElement!.getAttribute('ID')!;
    return sign(response, responseId, spec.algorithm);
  }

  const signedResponse = (spec: AssertionSpec) => toBase64(responseDocument(spec));

  /** A signed response for `victim` with an unsigned assertion for `attacker` smuggled in. */
  function wrappedResponse(
    victim: AssertionSpec,
    attacker: { nameId: string; email?: string },
    variant: WrappingVariant,
  ) {
    const doc = parse(responseDocument(victim));
    const response = doc.documentElement!;
    const signed = response.getElementsByTagNameNS(NS.assertion, 'Assertion')[0]!;
    const evilXml = assertionXml({ ...victim, ...attacker }, victim.issuer ?? entityId, newId());
    const evil = parse(evilXml).documentElement!;
    wrap(doc, response, signed, doc.importNode(evil, true) as Element, variant);
    return toBase64(serialize(doc));
  }

  return {
    entityId,
    ssoUrl,
    certificatePem,
    /** The certificate as IdP metadata carries it: base64 DER, no PEM armour. */
    certificateBase64: certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''),
    settings: { entryPoint: ssoUrl, idpIssuer: entityId, idpCertificate: certificatePem } as SamlIdpSettings,
    responseDocument,
    signedResponse,
    unsignedResponse: (spec: AssertionSpec) =>
      signedResponse({ ...spec, signAssertion: false, signResponse: false }),
    expiredResponse: (spec: AssertionSpec) =>
      signedResponse({ ...spec, notBeforeOffsetMs: -600_000, notOnOrAfterOffsetMs: -300_000 }),
    wrongAudienceResponse: (spec: AssertionSpec, audience = 'https://other-sp.example.test/saml') =>
      signedResponse({ ...spec, audience }),
    /** Signed for `spec.nameId`, then the NameID text replaced: the digest no longer matches. */
    tamperedNameIdResponse(spec: AssertionSpec, nameId: string) {
      const xml = responseDocument(spec);
      return toBase64(
        xml.replace(`>${escapeXml(spec.nameId)}</saml:NameID>`, `>${escapeXml(nameId)}</saml:NameID>`),
      );
    },
    /**
     * Signed for `spec.nameId`, with an XML comment inserted after `visiblePrefix` inside the NameID: the
     * signature (c14n without comments) still holds, and a parser that stops at the comment reads the prefix.
     */
    commentInjectedResponse(spec: AssertionSpec, visiblePrefix: string) {
      const xml = responseDocument(spec);
      const rest = spec.nameId.slice(visiblePrefix.length);
      return toBase64(xml.replace(`>${spec.nameId}<`, `>${visiblePrefix}<!---->${rest}<`));
    },
    wrappedResponse,
    /** What an IdP posts back when the login failed there: a status, no assertion, no signature. */
    errorResponse(recipient: string, inResponseTo: string, subStatus = 'AuthnFailed') {
      return toBase64(
        [
          `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${newId()}" Version="2.0"`,
          ` IssueInstant="${iso(0)}" Destination="${escapeXml(recipient)}" InResponseTo="${escapeXml(inResponseTo)}">`,
          `<saml:Issuer>${escapeXml(entityId)}</saml:Issuer>`,
          '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder">',
          `<samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:${subStatus}"/>`,
          '</samlp:StatusCode></samlp:Status>',
          '</samlp:Response>',
        ].join(''),
      );
    },
  };
}

export type TestIdp = Awaited<ReturnType<typeof createTestIdp>>;

function wrap(doc: Document, response: Element, signed: Element, evil: Element, variant: WrappingVariant) {
  const extensions = () => {
    const element = doc.createElementNS(NS.protocol, 'samlp:Extensions');
    const status = response.getElementsByTagNameNS(NS.protocol, 'Status')[0]!;
    response.insertBefore(element, status);
    return element;
  };
  switch (variant) {
    case 'evil-sibling-before':
      response.insertBefore(evil, signed);
      return;
    case 'evil-sibling-after':
      response.appendChild(evil);
      return;
    case 'signed-moved-into-extensions':
      extensions().appendChild(signed);
      response.appendChild(evil);
      return;
    case 'evil-wraps-signed':
      response.replaceChild(evil, signed);
      evil.appendChild(signed);
      return;
    case 'signed-moved-into-signature-object': {
      // XSW8: the signature moves into the evil assertion; the original, without it, rides in ds:Object.
      const signature = signed.getElementsByTagNameNS(NS.dsig, 'Signature')[0]!;
      signed.removeChild(signature);
      const object = doc.createElementNS(NS.dsig, 'ds:Object');
      object.appendChild(signed);
      signature.appendChild(object);
      const evilIssuer = evil.getElementsByTagNameNS(NS.assertion, 'Issuer')[0]!;
      evil.insertBefore(signature, evilIssuer.nextSibling);
      response.appendChild(evil);
      return;
    }
    case 'evil-takes-signed-id': {
      // The evil assertion carries the original's ID and a copy of its signature; the original hides.
      evil.setAttribute('ID', signed.getAttribute('ID')!);
      const signature = signed.getElementsByTagNameNS(NS.dsig, 'Signature')[0]!;
      const evilIssuer = evil.getElementsByTagNameNS(NS.assertion, 'Issuer')[0]!;
      evil.insertBefore(signature.cloneNode(true), evilIssuer.nextSibling);
      extensions().appendChild(signed);
      response.appendChild(evil);
      return;
    }
  }
}

/**
 * What a naive verifier does: check the first signature in the document with the IdP's certificate.
 * A wrapping attack is only a real one when this still says yes.
 */
export function firstSignatureVerifies(samlResponse: string, certificatePem: string): boolean {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const signature = parse(xml).getElementsByTagNameNS(NS.dsig, 'Signature')[0];
  if (!signature) return false;
  const verifier = new SignedXml({ publicCert: certificatePem });
  verifier.loadSignature(serialize(signature));
  try {
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}

export const decodeSamlResponse = (samlResponse: string) =>
  Buffer.from(samlResponse, 'base64').toString('utf8');
