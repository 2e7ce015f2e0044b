/**
 * The login and key-publishing wire shapes both issuers answer with: the appliance takes the cloud's
 * PIN login body and returns the cloud's login result, and each publishes its keys as a JWKS.
 */
import { type Static, Type } from '@sinclair/typebox';
import { MetaSchema } from '../http/envelope.ts';
import { type ErrorDetail, InvalidRequestError } from '../http/errors.ts';

export const LoginDeviceFields = {
  device_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  device_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};
export const TenantSlugSchema = Type.String({ minLength: 1, maxLength: 63 });

const PinSchema = Type.String({ pattern: '^[0-9]{6}$', description: 'exactly 6 digits' });

/** `identifier`/`pin` are the documented names; `email`/`code` its accepted aliases. */
export const PinLoginSchema = Type.Object(
  {
    identifier: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'username or email' }),
    ),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'alias of identifier' })),
    pin: Type.Optional(PinSchema),
    code: Type.Optional({ ...PinSchema, description: 'alias of pin' }),
    tenant_slug: Type.Optional(TenantSlugSchema),
    location_id: Type.Optional(Type.String({ format: 'uuid' })),
    device_id: LoginDeviceFields.device_id,
    device_fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type PinLogin = Static<typeof PinLoginSchema>;

export const LoginSuccessSchema = Type.Object({
  type: Type.Literal('success'),
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  user: Type.Object({
    id: Type.String({ format: 'uuid' }),
    tenant_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    roles: Type.Array(Type.String()),
  }),
});

const MfaRequiredSchema = Type.Object({
  type: Type.Literal('mfa_required'),
  challenge_id: Type.String({ format: 'uuid' }),
  challenge_code: Type.String({ description: 'shown to the user beside the code prompt' }),
  factors: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      factor_type: Type.String(),
      enabled: Type.Boolean(),
    }),
  ),
});

export const LoginResultSchema = Type.Object({
  status: Type.Union([LoginSuccessSchema, MfaRequiredSchema]),
  meta: MetaSchema,
});

/** A P-256 public key as both issuers publish it. */
export const PublishedJwkSchema = Type.Object(
  {
    kty: Type.String(),
    kid: Type.String(),
    alg: Type.String(),
    use: Type.String(),
    crv: Type.String(),
    x: Type.String(),
    y: Type.String(),
  },
  { additionalProperties: false },
);
export type PublishedJwk = Static<typeof PublishedJwkSchema>;

export const JwksSchema = Type.Object({ keys: Type.Array(PublishedJwkSchema) });

/** The spec names the fields `identifier` and `pin` and accepts `email` and `code` for them. */
export function pinCredentials(body: PinLogin) {
  const problems: ErrorDetail[] = [];
  const pick = (field: string, a: string | undefined, alias: string, b: string | undefined) => {
    if (a !== undefined && b !== undefined && a !== b)
      problems.push({ field: `body.${alias}`, message: `differs from ${field}; send one` });
    if (a === undefined && b === undefined)
      problems.push({ field: `body.${field}`, message: `is required (or its alias ${alias})` });
    return a ?? b ?? '';
  };
  const identifier = pick('identifier', body.identifier, 'email', body.email);
  const pin = pick('pin', body.pin, 'code', body.code);
  if (problems.length > 0) throw new InvalidRequestError('The request is invalid', problems);
  return { identifier, pin };
}
