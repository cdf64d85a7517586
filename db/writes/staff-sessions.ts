import type { StaffSessionSurface } from '../../domain/team.js';
import type { Database } from '../orm.js';
import { recordAudit, type AuditEntry } from './audit.js';

/**
 * Writes of company user sessions (staff_sessions) and of their users' password hashes. Only
 * hashes of the session and CSRF secrets reach the table.
 */

export interface NewStaffSession {
  staffUserId: string;
  membershipId: string;
  tokenHash: string;
  csrfTokenHash: string;
  ttlHours: number;
  /** Where it is signed in: only a DASHBOARD session opens the dashboard. */
  surface: StaffSessionSurface;
}

interface IssuedRow {
  id: string;
  /** timestamptz arrives from the pool as PostgreSQL text. */
  expires_at: string;
}

/**
 * Opens a session and records its sign-in (`signIn`, when it is one: STAFF_SIGNED_IN,
 * DRIVER_SIGNED_IN) in one transaction, so a sign-in that cannot be recorded leaves no session
 * behind; or answers null and writes nothing when the membership or its user is no longer active.
 * Sign-in read the membership without a lock: FOR SHARE waits behind a deactivation
 * (db/writes/team.ts holds the membership FOR UPDATE while it ends its sessions) and reads what it
 * committed, so no session opens after that end.
 */
export async function insertStaffSession(
  db: Database,
  session: NewStaffSession,
  signIn?: (sessionId: string) => AuditEntry,
): Promise<{ sessionId: string; expiresAt: Date } | null> {
  return db.transaction(async (client) => {
    const live = await client.query(
      `select 1 from company_memberships m join staff_users u on u.id = m.staff_user_id
       where m.id = $1 and m.staff_user_id = $2 and m.active and u.status = 'ACTIVE'
       for share of m, u`,
      [session.membershipId, session.staffUserId],
    );
    if (live.rows.length === 0) return null;
    const { rows } = await client.query<IssuedRow>(
      `insert into staff_sessions (staff_user_id, membership_id, token_hash, csrf_token_hash, expires_at, surface)
       values ($1, $2, $3, $4, now() + make_interval(hours => $5), $6)
       returning id, expires_at`,
      [
        session.staffUserId,
        session.membershipId,
        session.tokenHash,
        session.csrfTokenHash,
        session.ttlHours,
        session.surface,
      ],
    );
    const sessionId = rows[0]!.id;
    if (signIn) await recordAudit(client, signIn(sessionId));
    return { sessionId, expiresAt: new Date(rows[0]!.expires_at) };
  });
}

export async function recordStaffActivity(db: Database, sessionId: string): Promise<void> {
  await db.query('update staff_sessions set last_seen_at = now() where id = $1 and revoked_at is null', [
    sessionId,
  ]);
}

/**
 * Ends a live session and records its sign-out (`signOut`: STAFF_SIGNED_OUT, DRIVER_SIGNED_OUT), in
 * one transaction. Only the request that ends the session records it: a duplicate sign-out (a
 * retried request, a double click) that passed authentication before the first one committed finds
 * the session ended and writes nothing.
 */
export async function closeStaffSession(db: Database, sessionId: string, signOut: AuditEntry): Promise<void> {
  await db.transaction(async (client) => {
    const { rows } = await client.query(
      'update staff_sessions set revoked_at = now() where id = $1 and revoked_at is null returning id',
      [sessionId],
    );
    if (rows.length > 0) await recordAudit(client, signOut);
  });
}

/** Ends the session of `surface` a token hash names, if any. */
export async function revokeStaffSessionByToken(
  db: Database,
  tokenHash: string,
  surface: StaffSessionSurface,
): Promise<void> {
  await db.query(
    'update staff_sessions set revoked_at = now() where token_hash = $1 and surface = $2 and revoked_at is null',
    [tokenHash, surface],
  );
}

/** Hashes made with weaker settings are replaced while the password is at hand. */
export async function replaceStaffPasswordHash(
  db: Database,
  staffUserId: string,
  passwordHash: string,
): Promise<void> {
  await db.query('update staff_users set password_hash = $2 where id = $1', [staffUserId, passwordHash]);
}
