import type { Database } from '../orm.js';

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

export async function listTeam(
  db: Database,
  companyId: string,
  page: { limit: number; offset: number },
): Promise<{ members: TeamMember[]; total: number }> {
  const rows = await db.query<TeamMember & { total: number }>(
    `select m.id as "membershipId", u.id as "userId", u.email, u.name, m.role,
            case when u.status = 'DISABLED' then 'DISABLED' when not m.active then 'INACTIVE' else 'ACTIVE' end as status,
            to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "joinedAt",
            count(*) over ()::int as total
     from company_memberships m join staff_users u on u.id = m.staff_user_id
     where m.company_id = $1
     order by array_position($2::text[], m.role), lower(u.name), lower(u.email), m.id
     limit $3 offset $4`,
    [companyId, ROLE_ORDER, page.limit, page.offset],
  );
  const total = rows[0]?.total ?? (page.offset > 0 ? await countTeam(db, companyId) : 0);
  return { members: rows.map(({ total: _total, ...member }) => member), total };
}

async function countTeam(db: Database, companyId: string): Promise<number> {
  const [row] = await db.query<{ total: number }>(
    'select count(*)::int as total from company_memberships where company_id = $1',
    [companyId],
  );
  return row!.total;
}

export interface StaffMembership {
  companyId: string;
  role: string;
  name_en: string;
  name_ar: string;
}

/** The companies a staff user may sign in to (active dashboard memberships), oldest first. */
export async function dashboardMemberships(
  db: Database,
  staffUserId: string,
  roles: readonly string[],
): Promise<StaffMembership[]> {
  return db.query<StaffMembership>(
    `select c.id as "companyId", m.role, c.name_en, c.name_ar
     from company_memberships m join companies c on c.id = m.company_id
     where m.staff_user_id = $1 and m.active and m.role = any($2::text[])
     order by m.created_at, m.id`,
    [staffUserId, roles],
  );
}
