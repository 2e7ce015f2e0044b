/**
 * The operator CLI's commands. Each one checks its flags before anything is opened, so a usage
 * error never reaches the store, and returns the work to run against the cloud's services.
 */
import { AppError, type ErrorDetail } from '../../shared/http/errors.ts';
import { isRole, ROLES } from '../../shared/roles.ts';
import { LIMITS, TIERS, type Tier } from '../../shared/tenancy.ts';
import type { CloudServices } from '../services.ts';

/** A mistake in the command line itself: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';

  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export interface FlagSpec {
  value: string;
  description: string;
  required?: boolean;
}

export type Flags = Record<string, string | undefined>;
export type Operation = (services: CloudServices) => Promise<unknown>;

export interface Command {
  /** One or more words, e.g. "tenant create". */
  name: string;
  description: string;
  flags: Record<string, FlagSpec>;
  /** Validates the flags (no store yet) and returns the work to do. */
  prepare(flags: Flags): Operation;
}

const PAGE_SIZE = 100;
// The platform API's own limits, so what the CLI sets the API also accepts.
const MAX_PASSWORD_LENGTH = LIMITS.password.max;
const MAX_TENANT_NAME_LENGTH = LIMITS.nameMax;
const MAX_PERSON_NAME_LENGTH = LIMITS.personNameMax;

const invalid = (flag: string, problem: string) =>
  new UsageError(`--${flag} ${problem}`, [{ field: `--${flag}`, message: problem }]);

/** A required flag: main checked its presence before prepare(); an empty value is refused here. */
function text(flags: Flags, name: string): string {
  const value = flags[name];
  if (value === undefined) throw invalid(name, 'is required');
  if (value.trim() === '') throw invalid(name, 'must not be empty');
  return value;
}

/** Checks an optional flag only when it was given. */
const optional = <T>(flags: Flags, name: string, check: (value: string) => T) =>
  flags[name] === undefined ? undefined : check(text(flags, name));

function slug(value: string) {
  if (!new RegExp(LIMITS.slugPattern).test(value)) {
    throw invalid('slug', 'must be 1-63 lowercase letters, digits or inner hyphens');
  }
  return value;
}

function tier(value: string): Tier {
  if (!(TIERS as readonly string[]).includes(value))
    throw invalid('tier', `must be one of ${TIERS.join(', ')}`);
  return value as Tier;
}

function email(value: string) {
  const address = value.trim();
  if (address.length > 320 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
    throw invalid('email', 'must be an email address like name@example.com');
  }
  return address;
}

function password(value: string) {
  if (value.length < LIMITS.password.min) {
    throw invalid('password', `must be at least ${LIMITS.password.min} characters`);
  }
  if (value.length > MAX_PASSWORD_LENGTH) {
    throw invalid('password', `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
  return value;
}

function pin(value: string) {
  if (!new RegExp(LIMITS.pinPattern).test(value)) throw invalid('pin', 'must be exactly 6 digits');
  return value;
}

function username(value: string) {
  if (!new RegExp(LIMITS.usernamePattern).test(value)) {
    throw invalid('username', 'must be 2-64 letters, digits, dots, hyphens or underscores');
  }
  return value;
}

/** A trimmed name of at most `max` characters. */
const boundedName = (flag: string, max: number) => (value: string) => {
  const trimmed = value.trim();
  if (trimmed.length > max) throw invalid(flag, `must be at most ${max} characters`);
  return trimmed;
};

function roles(value: string) {
  const names = value
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
  if (names.length === 0) throw invalid('roles', 'must name at least one role');
  const unknown = names.filter((role) => !isRole(role));
  if (unknown.length > 0) {
    throw invalid('roles', `has unknown roles: ${unknown.join(', ')} (known: ${ROLES.join(', ')})`);
  }
  return names;
}

async function tenantBySlug(services: CloudServices, slug: string, flag: string) {
  const tenant = await services.tenancy.tenantBySlug(slug);
  if (tenant) return tenant;
  throw new AppError(404, 'TENANT_NOT_FOUND', `No tenant has the slug "${slug}"`, {
    details: [{ field: `--${flag}`, message: 'is not the slug of an existing tenant' }],
  });
}

async function accountByEmail(services: CloudServices, address: string) {
  const account = await services.tenancy.findAccount(address);
  if (account) return account;
  throw new AppError(404, 'USER_NOT_FOUND', `No user has the email "${address}"`, {
    details: [{ field: '--email', message: 'is not the email of an existing user' }],
  });
}

/** The tenant's member with that email, ready for a trusted update. */
async function memberByEmail(services: CloudServices, tenantSlug: string, address: string) {
  const tenant = await tenantBySlug(services, tenantSlug, 'tenant');
  const account = await accountByEmail(services, address);
  if (await services.tenancy.findMember(tenant.id, account.id)) return { tenant, account };
  throw new AppError(404, 'USER_NOT_FOUND', `"${address}" is not a member of tenant "${tenantSlug}"`, {
    details: [{ field: '--email', message: 'is not a member of this tenant' }],
  });
}

async function allPages<T>(
  list: (page: { limit: number; after?: string | undefined }) => Promise<{
    items: T[];
    nextCursor: string | null;
  }>,
) {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const page = await list({ limit: PAGE_SIZE, after });
    items.push(...page.items);
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
  return items;
}

const tenantFlag: FlagSpec = { value: 'slug', description: 'the tenant, by slug', required: true };
const emailFlag: FlagSpec = { value: 'email', description: "the user's email address", required: true };
const tierValues = TIERS.join('|');

const tenantCommands: Command[] = [
  {
    name: 'tenant create',
    description: 'Creates a tenant (free tier unless --tier says otherwise).',
    flags: {
      slug: { value: 'slug', description: 'unique, lowercase: a-z, 0-9, -', required: true },
      name: { value: 'name', description: 'display name', required: true },
      tier: { value: tierValues, description: 'rate-limit tier (default free)' },
    },
    prepare(flags) {
      const input = {
        slug: slug(text(flags, 'slug')),
        name: boundedName('name', MAX_TENANT_NAME_LENGTH)(text(flags, 'name')),
        tier: optional(flags, 'tier', tier),
      };
      return (services) => services.tenancy.createTenant(input);
    },
  },
  {
    name: 'tenant list',
    description: 'Lists every tenant.',
    flags: {},
    prepare: () => (services) => allPages((page) => services.tenancy.listTenants(page)),
  },
  {
    name: 'tenant set-tier',
    description: "Changes a tenant's tier, which sets its API rate limit.",
    flags: {
      slug: { value: 'slug', description: 'the tenant', required: true },
      tier: { value: tierValues, description: 'the new tier', required: true },
    },
    prepare(flags) {
      const tenantSlug = text(flags, 'slug');
      const newTier = tier(text(flags, 'tier'));
      return async (services) => {
        const tenant = await tenantBySlug(services, tenantSlug, 'slug');
        return services.tenancy.updateTenant(tenant.id, { tier: newTier });
      };
    },
  },
];

const userCommands: Command[] = [
  {
    name: 'user create',
    description:
      'Adds a user to a tenant: a new account, or an existing one (same email) joining another tenant; ' +
      "given credentials replace the account's.",
    flags: {
      tenant: tenantFlag,
      email: emailFlag,
      roles: { value: 'role,role', description: `comma-separated: ${ROLES.join(', ')}`, required: true },
      password: { value: 'password', description: '8-256 characters' },
      pin: { value: 'NNNNNN', description: 'staff PIN, exactly 6 digits' },
      username: { value: 'username', description: 'an alternative login identifier' },
      'first-name': { value: 'name', description: 'given name' },
      'last-name': { value: 'name', description: 'family name' },
    },
    prepare(flags) {
      const tenantSlug = text(flags, 'tenant');
      const input = {
        email: email(text(flags, 'email')),
        roles: roles(text(flags, 'roles')),
        password: optional(flags, 'password', password),
        pin: optional(flags, 'pin', pin),
        username: optional(flags, 'username', username),
        first_name: optional(flags, 'first-name', boundedName('first-name', MAX_PERSON_NAME_LENGTH)),
        last_name: optional(flags, 'last-name', boundedName('last-name', MAX_PERSON_NAME_LENGTH)),
      };
      return async (services) => {
        const tenant = await tenantBySlug(services, tenantSlug, 'tenant');
        return services.tenancy.addUser(tenant.id, input, { trusted: true });
      };
    },
  },
  {
    name: 'user list',
    description: 'Lists the members of a tenant with their roles.',
    flags: { tenant: tenantFlag },
    prepare(flags) {
      const tenantSlug = text(flags, 'tenant');
      return async (services) => {
        const tenant = await tenantBySlug(services, tenantSlug, 'tenant');
        return allPages((page) => services.tenancy.listMembers(tenant.id, page));
      };
    },
  },
  {
    name: 'user set-password',
    description: "Sets a member's password, even on an account several tenants share.",
    flags: {
      tenant: tenantFlag,
      email: emailFlag,
      password: { value: 'password', description: '8-256 characters', required: true },
    },
    prepare(flags) {
      const tenantSlug = text(flags, 'tenant');
      const address = email(text(flags, 'email'));
      const secret = password(text(flags, 'password'));
      return async (services) => {
        const { tenant, account } = await memberByEmail(services, tenantSlug, address);
        return services.tenancy.updateMember(tenant.id, account.id, { password: secret }, { trusted: true });
      };
    },
  },
  {
    name: 'user set-pin',
    description: "Sets a member's staff PIN, even on an account several tenants share.",
    flags: {
      tenant: tenantFlag,
      email: emailFlag,
      pin: { value: 'NNNNNN', description: 'exactly 6 digits', required: true },
    },
    prepare(flags) {
      const tenantSlug = text(flags, 'tenant');
      const address = email(text(flags, 'email'));
      const secret = pin(text(flags, 'pin'));
      return async (services) => {
        const { tenant, account } = await memberByEmail(services, tenantSlug, address);
        return services.tenancy.updateMember(tenant.id, account.id, { pin: secret }, { trusted: true });
      };
    },
  },
  {
    name: 'user mfa-reset',
    description: 'Removes every MFA factor of a user who lost their authenticator (in every tenant).',
    flags: { email: emailFlag },
    prepare(flags) {
      const address = email(text(flags, 'email'));
      return async (services) => {
        const account = await accountByEmail(services, address);
        await services.identity.mfa.reset(account.id);
        return { user_id: account.id, email: account.email, factors_removed: true };
      };
    },
  },
];

const keyCommands: Command[] = [
  {
    name: 'keys rotate',
    description: 'Makes a new token signing key active; the old one keeps verifying until its tokens expire.',
    flags: {},
    prepare: () => async (services) => ({ kid: await services.identity.keys.rotate() }),
  },
  {
    name: 'keys list',
    description: 'Shows the published JWKS: the active key and retired keys still verifying tokens.',
    flags: {},
    prepare: () => (services) => services.identity.keys.jwks(),
  },
];

export const COMMANDS: readonly Command[] = [...tenantCommands, ...userCommands, ...keyCommands];

export function usageOf(command: Command) {
  const flags = Object.entries(command.flags).map(([flag, spec]) => {
    const usage = `--${flag} <${spec.value}>`;
    return spec.required ? usage : `[${usage}]`;
  });
  return [command.name, ...flags].join(' ');
}
