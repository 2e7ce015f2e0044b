/**
 * SAML 2.0 service-provider side of per-tenant single sign-on, on @node-saml/node-saml 5.1 (earlier
 * versions accepted unsigned assertions). node-saml verifies the assertion's signature against the
 * pinned certificate, its Conditions times and its audience; this module adds what node-saml skips
 * for a login response: the assertion's Issuer, the bearer SubjectConfirmation (Recipient, expiry)
 * and an InResponseTo taken from the signed assertion, not from the unsigned Response around it.
 */
import { randomBytes } from 'node:crypto';
import { type Profile, SAML, type SamlConfig, ValidateInResponseTo } from '@node-saml/node-saml';
import { confirmBearerSubject, type SamlIdentity, signedAssertion, toIdentity } from './saml-assertion.ts';
import { rejectionFromNodeSaml, SamlRejected } from './saml-errors.ts';
import {
  checkSamlIdpSettings,
  checkServiceProvider,
  parseIdpCertificate,
  type SamlIdpSettings,
  type SamlServiceProvider,
} from './saml-settings.ts';

export type { SamlIdentity } from './saml-assertion.ts';
export { SAML_REJECT_REASONS, SamlRejected, type SamlRejectReason } from './saml-errors.ts';
export {
  checkSamlIdpSettings,
  parseIdpCertificate,
  type SamlIdpSettings,
  type SamlServiceProvider,
} from './saml-settings.ts';

export interface SamlClientOptions {
  /** Tolerance for the IdP's clock on every NotBefore / NotOnOrAfter; at most five minutes. */
  clockSkewMs?: number;
}

export const DEFAULT_CLOCK_SKEW_MS = 3_000;
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
// RelayState must not exceed 80 bytes (SAML bindings 3.4.3); IdPs may refuse or cut a longer one.
const MAX_RELAY_STATE_BYTES = 80;
const MAX_RESPONSE_CHARS = 512 * 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// xml-crypto verifies SHA-1 signatures and digests unless told otherwise; we require SHA-256 or better.
const SHA1_ALGORITHM = /Algorithm\s*=\s*["']http:\/\/www\.w3\.org\/2000\/09\/xmldsig#(?:rsa-|dsa-)?sha1["']/;

export type SamlClient = ReturnType<typeof createSamlClient>;

export function createSamlClient(
  idp: SamlIdpSettings,
  sp: SamlServiceProvider,
  options: SamlClientOptions = {},
) {
  const problems = [...checkSamlIdpSettings(idp), ...checkServiceProvider(sp)];
  if (problems.length > 0) {
    throw new TypeError(
      `Invalid SAML settings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  }
  const clockSkewMs = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  // node-saml reads -1 as "skip every time check", so only a small, non-negative skew is allowed.
  if (!Number.isFinite(clockSkewMs) || clockSkewMs < 0 || clockSkewMs > MAX_CLOCK_SKEW_MS) {
    throw new RangeError(`clockSkewMs must be between 0 and ${MAX_CLOCK_SKEW_MS}`);
  }
  const config = nodeSamlConfig(idp, sp, clockSkewMs);
  const verifier = new SAML(config);

  return {
    /** The IdP URL to send the browser to (HTTP-Redirect binding), with the AuthnRequest ID to remember. */
    async authorizationUrl(relayState: string): Promise<{ url: string; requestId: string }> {
      if (Buffer.byteLength(relayState) > MAX_RELAY_STATE_BYTES) {
        throw new RangeError(`relayState must be at most ${MAX_RELAY_STATE_BYTES} bytes`);
      }
      const requestId = `_${randomBytes(20).toString('hex')}`;
      // One instance per request, so concurrent calls cannot swap IDs.
      const requester = new SAML({ ...config, generateUniqueId: () => requestId });
      return { url: await requester.getAuthorizeUrlAsync(relayState, undefined, {}), requestId };
    },

    /** Validates a POSTed SAMLResponse (base64). Throws SamlRejected with a reason on any failure. */
    async validate(samlResponse: string): Promise<SamlIdentity> {
      const { base64, xml } = decodeResponse(samlResponse);
      const profile = await verifiedProfile(verifier, base64, xml);
      if (profile.issuer !== idp.idpIssuer) {
        throw new SamlRejected(
          'issuer_mismatch',
          `Assertion issuer ${profile.issuer} is not ${idp.idpIssuer}`,
        );
      }
      const assertion = signedAssertion(profile);
      const subject = confirmBearerSubject(assertion, sp.acsUrl, clockSkewMs, Date.now());
      const responseInResponseTo =
        typeof profile.inResponseTo === 'string' ? profile.inResponseTo : undefined;
      if (responseInResponseTo !== undefined && responseInResponseTo !== subject.inResponseTo) {
        throw new SamlRejected(
          'in_response_to_mismatch',
          `Response InResponseTo ${responseInResponseTo} differs from the assertion's ${subject.inResponseTo}`,
        );
      }
      return toIdentity(profile, assertion, subject);
    },
  };
}

function nodeSamlConfig(idp: SamlIdpSettings, sp: SamlServiceProvider, clockSkewMs: number): SamlConfig {
  return {
    entryPoint: idp.entryPoint,
    idpIssuer: idp.idpIssuer,
    idpCert: parseIdpCertificate(idp.idpCertificate)!.toString(),
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    wantAssertionsSigned: true,
    // Most IdPs sign only the assertion; node-saml 5 would otherwise also demand a signed Response.
    wantAuthnResponseSigned: false,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    acceptedClockSkewMs: clockSkewMs,
    // The caller keeps request IDs in the database, across replicas, and compares identity.inResponseTo.
    validateInResponseTo: ValidateInResponseTo.never,
    // node-saml asks for an emailAddress NameID and password authentication by default; IdPs that
    // cannot satisfy either (MFA, Windows auth, persistent IDs) answer with an error instead of a login.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  };
}

function decodeResponse(samlResponse: string): { base64: string; xml: string } {
  const base64 = typeof samlResponse === 'string' ? samlResponse.replace(/\s+/g, '') : '';
  if (base64.length === 0 || base64.length > MAX_RESPONSE_CHARS || !BASE64.test(base64)) {
    throw new SamlRejected('malformed', 'SAMLResponse is not base64 of an acceptable size');
  }
  const xml = Buffer.from(base64, 'base64').toString('utf8');
  // SAML messages must not carry a DTD; refusing them early keeps entity tricks out of every parser.
  if (xml.includes('<!DOCTYPE')) throw new SamlRejected('malformed', 'SAMLResponse carries a DTD');
  if (SHA1_ALGORITHM.test(xml)) throw new SamlRejected('weak_algorithm', 'SAMLResponse is signed with SHA-1');
  return { base64, xml };
}

async function verifiedProfile(verifier: SAML, base64: string, xml: string): Promise<Profile> {
  let result: Awaited<ReturnType<SAML['validatePostResponseAsync']>>;
  try {
    result = await verifier.validatePostResponseAsync({ SAMLResponse: base64 });
  } catch (error) {
    throw rejectionFromNodeSaml(error, xml);
  }
  if (!result.profile || result.loggedOut) {
    throw new SamlRejected('malformed', 'SAMLResponse is not a login response');
  }
  return result.profile;
}
