import type { StaffSessionSurface } from '../../domain/team.js';
import type { Database } from '../orm.js';
import { prepared } from '../prepared.js';

/**
 * Reads behind company user sign-in and sessions (staff_sessions, staff_users, company_memberships
 * and the company). Sessions are found by the hash of their token; roles are the membership roles
 * and surfaces where the session was signed in that the caller accepts, so one read serves the
 * dashboard (its own sessions) and the driver app (both kinds).
 */

/** The company of a session or membership, as the dashboard shows it. */
export interface StaffCompany {
  id: string;
  name_en: string;
  name_ar: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
}

/** A signed-in company user: session, user, membership and company. */
export interface StaffSessionMember<Role extends string = string> {
  sessionId: string;
  staffUserId: string;
  email: string;
  name: string;
  membershipId: string;
  companyId: string;
  role: Role;
  company: StaffCompany;
}

export interface LiveSession<Role extends string = string> {
  staff: StaffSessionMember<Role>;
  csrfTokenHash: string;
  /** Activity not recorded for a while: the caller refreshes last_seen_at. */
  stale: boolean;
}

/** The company columns of a session or membership read (STAFF_COMPANY_COLUMNS, `c` the companies row). */
interface StaffCompanyRow {
  company_id: string;
  name_en: string;
  name_ar: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
}

const STAFF_COMPANY_COLUMNS = 'c.id as company_id, c.name_en, c.name_ar, c.status, c.verified, c.published';

const toStaffCompany = (row: StaffCompanyRow): StaffCompany => ({
  id: row.company_id,
  name_en: row.name_en,
  name_ar: row.name_ar,
  status: row.status,
  verified: row.verified,
  published: row.published,
});

interface SessionRow<Role extends string> extends StaffCompanyRow {
  session_id: string;
  csrf_token_hash: string;
  stale: boolean;
  staff_user_id: string;
  email: string;
  name: string;
  membership_id: string;
  role: Role;
}

const toLiveSession = <Role extends string>(row: SessionRow<Role>): LiveSession<Role> => ({
  csrfTokenHash: row.csrf_token_hash,
  stale: row.stale,
  staff: {
    sessionId: row.session_id,
    staffUserId: row.staff_user_id,
    email: row.email,
    name: row.name,
    membershipId: row.membership_id,
    companyId: row.company_id,
    role: row.role,
    company: toStaffCompany(row),
  },
});

/**
 * The live session behind a token hash whose membership role is one of `roles` and which was
 * signed in on one of `surfaces`, with its user, membership and company, or null when the token is
 * unknown, revoked, past its absolute or idle limit, its user or membership is no longer active, or
 * the role or surface is not accepted. It is stale when its activity was last recorded more than
 * `activityResolutionSeconds` ago; since only a request that finds it stale is recorded, the idle limit
 * counts from the recorded activity plus that lag, so no session ends before its idle minutes.
 */
export async function findLiveStaffSession<Role extends string>(
  db: Database,
  session: { tokenHash: string; idleMinutes: number; activityResolutionSeconds: number },
  accepted: { roles: readonly Role[]; surfaces: readonly StaffSessionSurface[] },
): Promise<LiveSession<Role> | null> {
  // Every authenticated dashboard and driver app request runs it: prepared once per connection.
  const { rows } = await db.pool.query<SessionRow<Role>>(
    prepared(
      `select s.id as session_id, s.csrf_token_hash,
            s.last_seen_at < now() - make_interval(secs => $4) as stale,
            u.id as staff_user_id, u.email, u.name,
            m.id as membership_id, m.role, ${STAFF_COMPANY_COLUMNS}
     from staff_sessions s
     join staff_users u on u.id = s.staff_user_id and u.status = 'ACTIVE'
     join company_memberships m on m.id = s.membership_id and m.staff_user_id = u.id and m.active
       and m.role = any($3::text[])
     join companies c on c.id = m.company_id
     where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()
       and s.last_seen_at > now() - make_interval(mins => $2, secs => $4) and s.surface = any($5::text[])`,
      [
        session.tokenHash,
        session.idleMinutes,
        accepted.roles,
        session.activityResolutionSeconds,
        accepted.surfaces,
      ],
    ),
  );
  const row = rows[0];
  return row ? toLiveSession(row) : null;
}

/** A company user as sign-in checks them: with the password hash, whatever the status. */
export interface StaffCredentials {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  status: 'ACTIVE' | 'DISABLED';
}

interface StaffUserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  status: 'ACTIVE' | 'DISABLED';
}

const toStaffCredentials = (row: StaffUserRow): StaffCredentials => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  status: row.status,
});

/** The company user with this e-mail address (any case), or null. */
export async function staffCredentials(db: Database, email: string): Promise<StaffCredentials | null> {
  const [row] = await db.query<StaffUserRow>(
    'select id, email, name, password_hash, status from staff_users where lower(email) = lower($1)',
    [email],
  );
  return row ? toStaffCredentials(row) : null;
}

export interface SignInMembership<Role extends string = string> {
  id: string;
  role: Role;
  company: StaffCompany;
}

interface MembershipRow<Role extends string> extends StaffCompanyRow {
  id: string;
  role: Role;
}

/**
 * The user's active membership with one of `roles` to open a session for: in `companyId` when
 * given, else the oldest. The company's status does not matter here.
 */
export async function signInMembership<Role extends string>(
  db: Database,
  staffUserId: string,
  roles: readonly Role[],
  companyId: string | undefined,
): Promise<SignInMembership<Role> | null> {
  const [row] = await db.query<MembershipRow<Role>>(
    `select m.id, m.role, ${STAFF_COMPANY_COLUMNS}
     from company_memberships m join companies c on c.id = m.company_id
     where m.staff_user_id = $1 and m.active and m.role = any($2::text[]) and ($3::uuid is null or m.company_id = $3)
     order by m.created_at, m.id
     limit 1`,
    [staffUserId, roles, companyId ?? null],
  );
  return row ? { id: row.id, role: row.role, company: toStaffCompany(row) } : null;
}
