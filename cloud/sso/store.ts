import type { Db } from '../db/index.ts';
import type { SsoIdentityRow, SsoLoginRow, SsoPolicyRow, SsoProviderRow } from './tables.ts';

const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) > 0;

/** Providers and policies are tenant-scoped; logins and identities are keyed by secrets we issued. */
export function createSsoStore(db: Db) {
  return {
    insertProvider: (row: SsoProviderRow) => db.insertInto('sso_providers').values(row).execute(),
    provider: (tenantId: string, id: string) =>
      db
        .selectFrom('sso_providers')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    /** For sign-in, which starts before anyone is authenticated: the provider id names its tenant. */
    providerById: (id: string) =>
      db.selectFrom('sso_providers').selectAll().where('id', '=', id).executeTakeFirst(),
    providers: (tenantId: string) =>
      db
        .selectFrom('sso_providers')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    updateProvider: async (tenantId: string, id: string, patch: Partial<SsoProviderRow>) =>
      changed(
        await db
          .updateTable('sso_providers')
          .set(patch)
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .executeTakeFirst(),
      ),
    deleteProvider: async (tenantId: string, id: string) =>
      Number(
        (
          await db
            .deleteFrom('sso_providers')
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .executeTakeFirst()
        ).numDeletedRows,
      ) > 0,

    policy: (tenantId: string) =>
      db.selectFrom('sso_policies').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst(),
    savePolicy: (row: SsoPolicyRow) =>
      db
        .insertInto('sso_policies')
        .values(row)
        .onConflict((oc) =>
          oc.column('tenant_id').doUpdateSet({
            require_sso: row.require_sso,
            bypass_roles: row.bypass_roles,
            updated_at: row.updated_at,
          }),
        )
        .execute(),

    insertLogin: (row: SsoLoginRow) => db.insertInto('sso_logins').values(row).execute(),
    login: (state: string) =>
      db.selectFrom('sso_logins').selectAll().where('state', '=', state).executeTakeFirst(),
    /** The ACS's step: the assertion checked out; the client may now redeem the code once. */
    assertLogin: async (state: string, identity: string, codeHash: string) =>
      changed(
        await db
          .updateTable('sso_logins')
          .set({ saml_identity: identity, saml_code_hash: codeHash })
          .where('state', '=', state)
          .where('saml_identity', 'is', null)
          .where('consumed_at', 'is', null)
          .executeTakeFirst(),
      ),
    /** Only one redemption of a sign-in wins, whichever replica it reaches. */
    consumeLogin: async (state: string, at: string) =>
      changed(
        await db
          .updateTable('sso_logins')
          .set({ consumed_at: at })
          .where('state', '=', state)
          .where('consumed_at', 'is', null)
          .executeTakeFirst(),
      ),
    pruneLogins: (before: string) => db.deleteFrom('sso_logins').where('expires_at', '<', before).execute(),

    identity: (providerKey: string, subject: string) =>
      db
        .selectFrom('sso_identities')
        .selectAll()
        .where('provider_key', '=', providerKey)
        .where('subject', '=', subject)
        .executeTakeFirst(),
    linkIdentity: (row: SsoIdentityRow) =>
      db
        .insertInto('sso_identities')
        .values(row)
        .onConflict((oc) => oc.columns(['provider_key', 'subject']).doNothing())
        .execute(),
    touchIdentity: (providerKey: string, subject: string, email: string, at: string) =>
      db
        .updateTable('sso_identities')
        .set({ email, last_login_at: at })
        .where('provider_key', '=', providerKey)
        .where('subject', '=', subject)
        .execute(),
  };
}

export type SsoStore = ReturnType<typeof createSsoStore>;
