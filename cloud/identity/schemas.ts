import { type Static, Type } from '@sinclair/typebox';
import { MetaSchema } from '../../shared/http/envelope.ts';
import { MemberSchema } from '../tenancy/schemas.ts';

const Device = {
  device_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  device_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};
const TenantSlug = Type.String({ minLength: 1, maxLength: 63 });
const Pin = Type.String({ pattern: '^[0-9]{6}$', description: 'exactly 6 digits' });
const Code = Type.String({ pattern: '^[0-9]{6}$', description: '6-digit TOTP code' });

export const PasswordLoginSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tenant_slug: Type.Optional(TenantSlug),
    ...Device,
  },
  { additionalProperties: false },
);
export type PasswordLogin = Static<typeof PasswordLoginSchema>;

/** `identifier`/`pin` are the spec's names; `email`/`code` its accepted aliases. */
export const PinLoginSchema = Type.Object(
  {
    identifier: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'username or email' }),
    ),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'alias of identifier' })),
    pin: Type.Optional(Pin),
    code: Type.Optional({ ...Pin, description: 'alias of pin' }),
    tenant_slug: Type.Optional(TenantSlug),
    location_id: Type.Optional(Type.String({ format: 'uuid' })),
    device_id: Device.device_id,
    device_fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type PinLogin = Static<typeof PinLoginSchema>;

export const MfaVerifySchema = Type.Object(
  { challenge_id: Type.String({ format: 'uuid' }), code: Code },
  { additionalProperties: false },
);
export const RefreshSchema = Type.Object(
  { refresh_token: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
export const ForkSessionSchema = Type.Object(
  {
    tenant_slug: Type.Optional(TenantSlug),
    ...Device,
    device_fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

const SuccessStatus = Type.Object({
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
const MfaRequiredStatus = Type.Object({
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
  status: Type.Union([SuccessStatus, MfaRequiredStatus]),
  meta: MetaSchema,
});
export const TokensResultSchema = Type.Object({ status: SuccessStatus, meta: MetaSchema });

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
export const SessionSchema = Type.Object({
  session_id: Type.String({ format: 'uuid' }),
  user_id: Type.String(),
  tenant_id: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('revoked')]),
  auth_method: Type.String({
    description:
      'password, pin, sso (a tenant identity provider), oauth (social login) or session (created from another session)',
  }),
  mfa_verified: Type.Boolean(),
  location_id: Nullable(Type.String()),
  device: Type.Object({
    id: Nullable(Type.String()),
    name: Nullable(Type.String()),
    fingerprint: Nullable(Type.String()),
  }),
  ip_address: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  parent_session_id: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  refreshed_at: Nullable(Type.String({ format: 'date-time' })),
  expires_at: Type.String({ format: 'date-time' }),
  ended_at: Nullable(Type.String({ format: 'date-time' })),
  end_reason: Nullable(Type.String()),
});

/** The spec's user profile: the member as its tenant sees it, less what only admins see. */
export const ProfileSchema = Type.Omit(MemberSchema, ['has_password', 'has_pin', 'created_at']);

export const FactorSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  label: Type.String(),
  factor_type: Type.Literal('totp'),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  enabled_at: Nullable(Type.String({ format: 'date-time' })),
});
export const EnrolledFactorSchema = Type.Composite([
  FactorSchema,
  Type.Object({
    secret: Type.String({ description: 'base32; shown once, at enrollment' }),
    otpauth_uri: Type.String({ description: 'for a QR code in an authenticator app' }),
  }),
]);
export const EnrollSchema = Type.Object(
  { label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);
export const CodeBodySchema = Type.Object({ code: Code }, { additionalProperties: false });
export const OptionalCodeBodySchema = Type.Object(
  { code: Type.Optional(Code) },
  { additionalProperties: false },
);
export const FactorParamsSchema = Type.Object({ factor_id: Type.String({ format: 'uuid' }) });

export const JwksSchema = Type.Object({
  keys: Type.Array(
    Type.Object(
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
    ),
  ),
});
