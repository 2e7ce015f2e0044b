import type { ApplianceDatabase } from '../db/index.ts';

export type StaffStatus = 'active' | 'disabled';

export interface StaffRow {
  id: string;
  tenant_id: string;
  email: string;
  username: string | null;
  display_name: string;
  /** JSON array of role names. */
  roles: string;
  pin_hash: string | null;
  status: StaffStatus;
  version: number;
  updated_at: string;
}

export interface Staff {
  id: string;
  tenantId: string;
  email: string;
  username: string | null;
  displayName: string;
  roles: string[];
  pinHash: string | null;
  status: StaffStatus;
  version: number;
  updatedAt: string;
}

export interface ApplianceSessionRow {
  id: string;
  staff_id: string;
  status: 'active' | 'ended';
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

const toStaff = (row: StaffRow): Staff => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  username: row.username,
  displayName: row.display_name,
  roles: JSON.parse(row.roles) as string[],
  pinHash: row.pin_hash,
  status: row.status,
  version: row.version,
  updatedAt: row.updated_at,
});

const toRow = (staff: Staff): StaffRow => ({
  id: staff.id,
  tenant_id: staff.tenantId,
  email: staff.email,
  username: staff.username,
  display_name: staff.displayName,
  roles: JSON.stringify(staff.roles),
  pin_hash: staff.pinHash,
  status: staff.status,
  version: staff.version,
  updated_at: staff.updatedAt,
});

/** A staff member as the sign-in screen shows them. */
export interface SignInStaff {
  id: string;
  email: string;
  username: string | null;
  displayName: string;
}

/** Staff, the appliance's sessions; statements prepared once. */
export function createStaffStore(db: ApplianceDatabase) {
  const byId = db.prepare<[string], StaffRow>('select * from staff where id = ?');
  const byEmail = db.prepare<[string, string], StaffRow>(
    'select * from staff where tenant_id = ? and email = ?',
  );
  const byUsername = db.prepare<[string, string], StaffRow>(
    'select * from staff where tenant_id = ? and username = ?',
  );
  const signInStaff = db.prepare<[string], SignInStaff>(`
    select id, email, username, display_name as displayName from staff
    where tenant_id = ? and status = 'active' and pin_hash is not null
    order by display_name collate nocase, id
  `);
  const displayNames = db.prepare<[string, string], { id: string; display_name: string }>(
    'select id, display_name from staff where tenant_id = ? and id in (select value from json_each(?))',
  );
  // A replayed or older copy of a row never overwrites a newer one.
  const upsert = db.prepare<StaffRow>(`
    insert into staff (id, tenant_id, email, username, display_name, roles, pin_hash, status, version, updated_at)
    values (@id, @tenant_id, @email, @username, @display_name, @roles, @pin_hash, @status, @version, @updated_at)
    on conflict (id) do update set
      tenant_id = excluded.tenant_id, email = excluded.email, username = excluded.username,
      display_name = excluded.display_name, roles = excluded.roles, pin_hash = excluded.pin_hash,
      status = excluded.status, version = excluded.version, updated_at = excluded.updated_at
    where excluded.version >= staff.version
  `);
  const insertSession = db.prepare<ApplianceSessionRow>(`
    insert into appliance_sessions (id, staff_id, status, created_at, expires_at, ended_at)
    values (@id, @staff_id, @status, @created_at, @expires_at, @ended_at)
  `);
  const sessionById = db.prepare<[string], ApplianceSessionRow>(
    'select * from appliance_sessions where id = ?',
  );
  const endSession = db.prepare<[string, string]>(
    "update appliance_sessions set status = 'ended', ended_at = ? where id = ? and status = 'active'",
  );

  return {
    staff: (id: string) => {
      const row = byId.get(id);
      return row && toStaff(row);
    },
    staffByEmail: (tenantId: string, email: string) => {
      const row = byEmail.get(tenantId, email);
      return row && toStaff(row);
    },
    staffByUsername: (tenantId: string, username: string) => {
      const row = byUsername.get(tenantId, username);
      return row && toStaff(row);
    },
    /** Active staff of the tenant who have a PIN, by display name. */
    signInStaff: (tenantId: string) => signInStaff.all(tenantId),
    /** Display names by id, whatever the staff member's status; unknown ids are left out. */
    displayNames: (tenantId: string, ids: string[]) =>
      new Map(displayNames.all(tenantId, JSON.stringify(ids)).map((row) => [row.id, row.display_name])),
    /** True when the row was written; false when the stored copy is newer. */
    upsertStaff: (staff: Staff) => upsert.run(toRow(staff)).changes > 0,
    insertSession: (row: ApplianceSessionRow) => {
      insertSession.run(row);
    },
    session: (id: string) => sessionById.get(id),
    endSession: (id: string, at: string) => endSession.run(at, id).changes > 0,
  };
}

export type StaffStore = ReturnType<typeof createStaffStore>;
