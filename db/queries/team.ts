import type { Database } from '../orm.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import { countCompanyRows } from './company-records.js';
import { iso } from '../row-fields.js';

/**
 * Reads of a company's team (company_memberships with their staff users). The company is always
 * the caller's session company; these functions never widen beyond the id they are given.
 */
export type MemberStatus = 'ACTIVE' | 'INACTIVE' | 'DISABLED';

export interface TeamMember {
  membershipId: string;
  userId: string;
  email: string;
  name: string;
  role: string;
  /** ACTIVE; INACTIVE when the membership was deactivated; DISABLED when the user account is. */
  status: MemberStatus;
  joinedAt: string;
}

/** Owners first, then down the roles, then by name: the order a team page shows. */
const ROLE_ORDER = ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER', 'STAFF', 'DRIVER'];

interface MemberRow {
  membership_id: string;
  user_id: string;
  email: string;
  name: string;
  role: string;
  status: MemberStatus;
  /** ISO 8601 UTC (formatted in SQL). */
  joined_at: string;
}

interface TeamMemberRow extends MemberRow {
  /** Every member of the company (window count over the whole list). */
  total: number;
}

const toTeamMember = (row: MemberRow): TeamMember => ({
  membershipId: row.membership_id,
  userId: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.status,
  joinedAt: row.joined_at,
});

/** A member's columns as the team page shows them (`m` the membership, `u` its user). */
const MEMBER_COLUMNS = `m.id as membership_id, u.id as user_id, u.email, u.name, m.role,
       case when u.status = 'DISABLED' then 'DISABLED' when not m.active then 'INACTIVE' else 'ACTIVE' end as status,
       to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as joined_at`;

export async function listTeam(
  db: Database,
  companyId: string,
  page: { limit: number; offset: number },
): Promise<{ members: TeamMember[]; total: number }> {
  const rows = await db.query<TeamMemberRow>(
    `select ${MEMBER_COLUMNS}, count(*) over ()::int as total
     from company_memberships m join staff_users u on u.id = m.staff_user_id
     where m.company_id = $1
     order by array_position($2::text[], m.role), lower(u.name), lower(u.email), m.id
     limit $3 offset $4`,
    [companyId, ROLE_ORDER, page.limit, page.offset],
  );
  const total =
    rows[0]?.total ?? (page.offset > 0 ? await countCompanyRows(db, 'company_memberships', companyId) : 0);
  return { members: rows.map(toTeamMember), total };
}

/** One member of the company as GET /team shows it, or null (another company's membership too). */
export async function findTeamMember(
  runner: SqlRunner,
  companyId: string,
  membershipId: string,
): Promise<TeamMember | null> {
  const [row] = await rowsOf<MemberRow>(
    runner,
    `select ${MEMBER_COLUMNS}
     from company_memberships m join staff_users u on u.id = m.staff_user_id
     where m.company_id = $1 and m.id = $2`,
    [companyId, membershipId],
  );
  return row ? toTeamMember(row) : null;
}

/** A trip still to run (not yet departed) that names a member as its driver. */
export interface AssignedTrip {
  id: string;
  status: 'SCHEDULED' | 'DELAYED' | 'BOARDING';
  departureAt: string;
}

/** The most trips still to run a deactivation answer lists (a schedule may give a driver months of them). */
export const ASSIGNED_TRIPS_SHOWN = 100;

/**
 * The company's trips not yet departed whose driver is `userId`, soonest first, and how many. A
 * deactivation leaves them assigned (the dispatch view flags each DRIVER_INACTIVE), so the answer
 * tells the manager which trips need another driver.
 */
export async function tripsStillAssigned(
  runner: SqlRunner,
  companyId: string,
  userId: string,
): Promise<{ total: number; trips: AssignedTrip[] }> {
  const rows = await rowsOf<{
    id: string;
    status: AssignedTrip['status'];
    departure_at: string;
    total: number;
  }>(
    runner,
    `select t.id, t.status, t.departure_at, count(*) over ()::int as total
     from trips t
     where t.company_id = $1 and t.driver_id = $2 and t.status in ('SCHEDULED', 'DELAYED', 'BOARDING')
     order by t.departure_at, t.id
     limit $3`,
    [companyId, userId, ASSIGNED_TRIPS_SHOWN],
  );
  return {
    total: rows[0]?.total ?? 0,
    trips: rows.map((row) => ({ id: row.id, status: row.status, departureAt: iso(row.departure_at) })),
  };
}

export interface StaffMembership {
  companyId: string;
  role: string;
  name_en: string;
  name_ar: string;
}

interface StaffMembershipRow {
  company_id: string;
  role: string;
  name_en: string;
  name_ar: string;
}

const toStaffMembership = (row: StaffMembershipRow): StaffMembership => ({
  companyId: row.company_id,
  role: row.role,
  name_en: row.name_en,
  name_ar: row.name_ar,
});

/** The companies a staff user may sign in to (active dashboard memberships), oldest first. */
export async function dashboardMemberships(
  db: Database,
  staffUserId: string,
  roles: readonly string[],
): Promise<StaffMembership[]> {
  const rows = await db.query<StaffMembershipRow>(
    `select c.id as company_id, m.role, c.name_en, c.name_ar
     from company_memberships m join companies c on c.id = m.company_id
     where m.staff_user_id = $1 and m.active and m.role = any($2::text[])
     order by m.created_at, m.id`,
    [staffUserId, roles],
  );
  return rows.map(toStaffMembership);
}
