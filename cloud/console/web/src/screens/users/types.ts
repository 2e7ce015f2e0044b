/** The shapes of the /v1/platform/users and /v1/auth/mfa answers, as docs/api/cloud.md lists them. */

export type { Paged as ListAnswer } from '../../api.ts';

export interface Member {
  id: string;
  email: string;
  username: string;
  first_name: string;
  last_name: string;
  display_name: string;
  email_verified: boolean;
  roles: string[];
  status: 'active' | 'suspended';
  has_password: boolean;
  has_pin: boolean;
  created_at: string;
}

export interface Factor {
  id: string;
  label: string;
  factor_type: 'totp';
  enabled: boolean;
  created_at: string;
  enabled_at: string | null;
}

export interface NewFactor extends Factor {
  secret: string;
  otpauth_uri: string;
}

export const nameOf = (member: Member) =>
  member.display_name || `${member.first_name} ${member.last_name}`.trim() || member.email;
