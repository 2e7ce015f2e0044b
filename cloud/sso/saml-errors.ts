import { SamlStatusError } from '@node-saml/node-saml';
import { AppError } from '../../shared/http/errors.ts';

export const SAML_REJECT_REASONS = [
  'not_signed',
  'signature_invalid',
  'weak_algorithm',
  'expired',
  'not_yet_valid',
  'audience_mismatch',
  'recipient_mismatch',
  'issuer_mismatch',
  'in_response_to_mismatch',
  'idp_error',
  'malformed',
] as const;

export type SamlRejectReason = (typeof SAML_REJECT_REASONS)[number];

/**
 * A SAMLResponse we refuse. `reason` is safe to show an admin; `cause` keeps the library's own
 * message, which can name the expected audience or issuer, for logs only.
 */
export class SamlRejected extends AppError {
  constructor(
    readonly reason: SamlRejectReason,
    cause: unknown,
  ) {
    super(401, 'SSO_REJECTED', 'The identity provider response was rejected', {
      cause: cause instanceof Error ? cause : new Error(String(cause)),
      details: [{ field: 'SAMLResponse', message: reason }],
    });
    this.name = 'SamlRejected';
  }
}

// node-saml 5.1's messages, most specific first. Anything else is refused as malformed.
const NODE_SAML_MESSAGES: Array<[RegExp, SamlRejectReason]> = [
  [/^SAML assertion expired/, 'expired'],
  [/^SAML assertion not yet valid/, 'not_yet_valid'],
  [/audience/i, 'audience_mismatch'],
  [/^Invalid signature: No response found/, 'malformed'],
  [/signature|signed reference|reference uri|ref URI/i, 'signature_invalid'],
];

// Only decides which reason to report for a response node-saml already refused.
const HAS_SIGNATURE_ELEMENT = /<(?:[A-Za-z_][\w.-]*:)?Signature[\s>/]/;

/** Maps whatever node-saml threw to one of our reasons, keeping its error as the cause. */
export function rejectionFromNodeSaml(error: unknown, xml: string): SamlRejected {
  if (error instanceof SamlStatusError) return new SamlRejected('idp_error', error);
  const message = error instanceof Error ? error.message : String(error);
  const reason = NODE_SAML_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ?? 'malformed';
  if (reason === 'signature_invalid' && !HAS_SIGNATURE_ELEMENT.test(xml)) {
    return new SamlRejected('not_signed', error);
  }
  return new SamlRejected(reason, error);
}
