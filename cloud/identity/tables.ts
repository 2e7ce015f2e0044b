export type SessionStatus = 'active' | 'ended' | 'revoked';
/** `sso`: a tenant's identity provider; `oauth`: the platform's social login. */
export type AuthMethod = 'password' | 'pin' | 'session' | 'sso' | 'oauth';

export interface SessionRow {
  id: string;
  tenant_id: string;
  user_id: string;
  status: SessionStatus;
  auth_method: AuthMethod;
  mfa_verified: number;
  location_id: string | null;
  device_id: string | null;
  device_name: string | null;
  device_fingerprint: string | null;
  ip_address: string | null;
  user_agent: string | null;
  parent_session_id: string | null;
  refresh_jti: string;
  refresh_count: number;
  created_at: string;
  refreshed_at: string | null;
  expires_at: string;
  ended_at: string | null;
  end_reason: string | null;
}

export interface MfaFactorRow {
  id: string;
  user_id: string;
  factor_type: 'totp';
  label: string;
  secret: string;
  enabled: number;
  last_used_step: number | null;
  created_at: string;
  enabled_at: string | null;
}

export interface MfaChallengeRow {
  id: string;
  tenant_id: string;
  user_id: string;
  challenge_code: string;
  /** JSON of the session to open once the challenge is met (method, device, location). */
  context: string;
  attempts: number;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface SigningKeyRow {
  kid: string;
  alg: string;
  private_key: string;
  public_jwk: string;
  status: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
  /** A retired key stays in the JWKS until the last token it signed has expired. */
  publish_until: string | null;
}

export interface LoginThrottleRow {
  key: string;
  failures: number;
  last_failure_at: string;
  next_attempt_at: string | null;
  locked_until: string | null;
}

export interface IdentityTables {
  sessions: SessionRow;
  mfa_factors: MfaFactorRow;
  mfa_challenges: MfaChallengeRow;
  signing_keys: SigningKeyRow;
  login_throttle: LoginThrottleRow;
}
