import { Migration } from '@mikro-orm/migrations';

/**
 * `staff_sessions.surface`: where a company user's session was signed in, DASHBOARD (POST
 * /dashboard/api/auth/login, the bb_staff cookie) or DRIVER_APP (POST /driver/api/auth/login, a
 * bearer token). The dashboard takes only DASHBOARD sessions, so a token kept on a driver device is
 * not a dashboard session; the driver app takes both (README "Driver app").
 *
 * Existing rows keep working where they were made where that can be told: a session named by a
 * DRIVER_SIGNED_IN audit row (its details.sessionId), or of a DRIVER membership (which only the
 * driver app signs in), is DRIVER_APP. Every other row is DASHBOARD: so it was read until now, and
 * a DASHBOARD session still works in the driver app, so nobody is signed out; sessions end within
 * STAFF_SESSION_TTL_HOURS anyway. The default stays DASHBOARD for rows written without the column;
 * the sign-in names it on every insert (db/writes/staff-sessions.ts).
 */
export class Migration20261205110000_staff_session_surface extends Migration {
  override up(): void {
    this.addSql(`
      alter table staff_sessions add column surface text not null default 'DASHBOARD'
        check (surface in ('DASHBOARD', 'DRIVER_APP'))`);
    this.addSql(`
      update staff_sessions s set surface = 'DRIVER_APP'
      where exists (
          select 1 from audit_log a
          where a.actor_kind = 'DRIVER' and a.action = 'DRIVER_SIGNED_IN' and a.details->>'sessionId' = s.id::text)
        or exists (select 1 from company_memberships m where m.id = s.membership_id and m.role = 'DRIVER')`);
  }

  override down(): void {
    this.addSql('alter table staff_sessions drop column if exists surface');
  }
}
