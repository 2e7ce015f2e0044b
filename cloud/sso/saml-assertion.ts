import type { Profile } from '@node-saml/node-saml';
import { SamlRejected } from './saml-errors.ts';

export interface SamlIdentity {
  nameId: string;
  nameIdFormat: string | undefined;
  email: string | undefined;
  displayName?: string;
  /** The IdP entity ID from the signed assertion. */
  issuer: string;
  /** From the signed assertion; compare it with the AuthnRequest ID stored when the login began. */
  inResponseTo: string | undefined;
  sessionIndex?: string;
  /** Remember it until `notOnOrAfter` to refuse the same assertion posted twice. */
  assertionId: string;
  notOnOrAfter: Date;
  attributes: Record<string, unknown>;
}

export interface ConfirmedSubject {
  inResponseTo: string | undefined;
  notOnOrAfter: Date;
}

/** An element as node-saml's xml2js parse gives it: attributes under `$`, text under `_`. */
interface XmlElement {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
];
const DISPLAY_NAME_ATTRIBUTES = [
  'displayName',
  'http://schemas.microsoft.com/identity/claims/displayname',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'cn',
];
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const isElement = (value: unknown): value is XmlElement => typeof value === 'object' && value !== null;

function children(element: XmlElement | undefined, name: string): XmlElement[] {
  const value = element?.[name];
  return Array.isArray(value) ? value.filter(isElement) : [];
}

/** The assertion node-saml parsed from the bytes the signature covers, never from the document around them. */
export function signedAssertion(profile: Profile): XmlElement {
  const assertion = profile.getAssertion?.().Assertion;
  if (!isElement(assertion)) throw new SamlRejected('malformed', 'No signed assertion in the profile');
  return assertion;
}

function timeAttribute(data: Record<string, string>, name: string): number | undefined {
  const value = data[name];
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SamlRejected('malformed', `SubjectConfirmationData ${name} is not a date`);
  return ms;
}

function confirmationProblem(data: Record<string, string>, acsUrl: string, skewMs: number, nowMs: number) {
  if (data.Recipient !== acsUrl) {
    return new SamlRejected('recipient_mismatch', `Recipient ${data.Recipient} is not ${acsUrl}`);
  }
  const notOnOrAfter = timeAttribute(data, 'NotOnOrAfter');
  const notBefore = timeAttribute(data, 'NotBefore');
  if (notOnOrAfter === undefined)
    return new SamlRejected('malformed', 'Bearer confirmation has no NotOnOrAfter');
  if (nowMs - skewMs >= notOnOrAfter) return new SamlRejected('expired', 'Bearer confirmation expired');
  if (notBefore !== undefined && nowMs + skewMs < notBefore) {
    return new SamlRejected('not_yet_valid', 'Bearer confirmation not yet valid');
  }
  return undefined;
}

/**
 * The bearer SubjectConfirmation the Web Browser SSO profile requires (SAML profiles 4.1.4.2).
 * node-saml only checks it when it validates InResponseTo itself, which we turned off.
 */
export function confirmBearerSubject(
  assertion: XmlElement,
  acsUrl: string,
  skewMs: number,
  nowMs: number,
): ConfirmedSubject {
  const subject = children(assertion, 'Subject')[0];
  const bearers = children(subject, 'SubjectConfirmation').filter((c) => c.$?.Method === BEARER);
  let firstProblem: SamlRejected | undefined;
  for (const confirmation of bearers) {
    const data = children(confirmation, 'SubjectConfirmationData')[0]?.$ ?? {};
    const problem = confirmationProblem(data, acsUrl, skewMs, nowMs);
    if (!problem) {
      return { inResponseTo: data.InResponseTo, notOnOrAfter: new Date(Date.parse(data.NotOnOrAfter!)) };
    }
    firstProblem ??= problem;
  }
  throw firstProblem ?? new SamlRejected('malformed', 'The assertion has no bearer SubjectConfirmation');
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) return value.map(firstString).find((entry) => entry !== undefined);
  return undefined;
}

function emailOf(profile: Profile, attributes: Record<string, unknown>): string | undefined {
  if (profile.nameIDFormat === EMAIL_NAME_ID && EMAIL.test(profile.nameID)) return profile.nameID;
  return EMAIL_ATTRIBUTES.map((name) => firstString(attributes[name])).find(
    (value) => value !== undefined && EMAIL.test(value),
  );
}

export function toIdentity(profile: Profile, assertion: XmlElement, subject: ConfirmedSubject): SamlIdentity {
  const assertionId = assertion.$?.ID;
  if (typeof profile.nameID !== 'string' || profile.nameID.length === 0) {
    throw new SamlRejected('malformed', 'The assertion has no NameID');
  }
  if (!assertionId) throw new SamlRejected('malformed', 'The assertion has no ID');
  const attributes = isElement(profile.attributes) ? { ...profile.attributes } : {};
  const displayName = DISPLAY_NAME_ATTRIBUTES.map((name) => firstString(attributes[name])).find(Boolean);
  return {
    nameId: profile.nameID,
    nameIdFormat: profile.nameIDFormat || undefined,
    email: emailOf(profile, attributes),
    ...(displayName ? { displayName } : {}),
    issuer: profile.issuer,
    inResponseTo: subject.inResponseTo,
    ...(profile.sessionIndex ? { sessionIndex: profile.sessionIndex } : {}),
    assertionId,
    notOnOrAfter: subject.notOnOrAfter,
    attributes,
  };
}
