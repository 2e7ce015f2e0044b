import { type Static, Type } from '@sinclair/typebox';
import { MetaSchema } from '../../shared/http/envelope.ts';
import {
  LoginDeviceFields,
  LoginSuccessSchema,
  LoginResultSchema as SharedLoginResultSchema,
  TenantSlugSchema,
} from '../../shared/identity/schemas.ts';
import { MemberSchema } from '../tenancy/index.ts';

const Code = Type.String({ pattern: '^[0-9]{6}$', description: '6-digit TOTP code' });

export const PasswordLoginSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tenant_slug: Type.Optional(TenantSlugSchema),
    ...LoginDeviceFields,
  },
  { additionalProperties: false },
);
export type PasswordLogin = Static<typeof PasswordLoginSchema>;

export const MfaVerifySchema = Type.Object(
  { challenge_id: Type.String({ format: 'uuid' }), code: Code },
  { additionalProperties: false },
);
export const RefreshSchema = Type.Object(
  {
    refresh_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'Required, unless X-Refresh-Token-Transport: cookie sends it in the refresh_token cookie',
      }),
    ),
  },
  { additionalProperties: false },
);
export const ForkSessionSchema = Type.Object(
  {
    tenant_slug: Type.Optional(TenantSlugSchema),
    ...LoginDeviceFields,
    device_fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

/**
 * A token pair as the cloud answers it: a browser that keeps its refresh token in the http-only
 * cookie (cookie.ts) gets none in the body, where any script on its page could read it.
 */
const TokenPairSchema = Type.Object({
  ...LoginSuccessSchema.properties,
  refresh_token: Type.Optional(
    Type.String({ description: 'Absent with X-Refresh-Token-Transport: cookie: the cookie holds it' }),
  ),
});
const [, MfaRequiredSchema] = SharedLoginResultSchema.properties.status.anyOf;

export const LoginResultSchema = Type.Object({
  status: Type.Union([TokenPairSchema, MfaRequiredSchema]),
  meta: MetaSchema,
});
export const TokensResultSchema = Type.Object({ status: TokenPairSchema, meta: MetaSchema });

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

/** The documented user profile: the member as its tenant sees it, less what only admins see. */
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
