import type { Database } from '../orm.js';
import type { ShareDocumentKind, SharePresentation } from '../../domain/document-sharing.js';

/** The facts of a booking that decide who may share its documents. */
export interface ShareableBooking {
  id: string;
  companyId: string;
  ownerUserId: string | null;
  /** trips.driver_id: the staff user driving the booking's trip, if one is assigned. */
  driverId: string | null;
}

export async function shareableBooking(db: Database, bookingId: string): Promise<ShareableBooking | null> {
  const [row] = await db.query<ShareableBooking>(
    `select b.id, b.company_id as "companyId", b.owner_user_id as "ownerUserId", t.driver_id as "driverId"
       from bookings b join trips t on t.id = b.trip_id
      where b.id = $1`,
    [bookingId],
  );
  return row ?? null;
}

export type GrantStatus = 'CREATED' | 'ACCEPTED' | 'REVOKED' | 'EXPIRED';

export interface ShareGrantRow {
  id: string;
  bookingId: string;
  companyId: string;
  documentKind: ShareDocumentKind;
  presentation: SharePresentation;
  issuerKind: 'TRAVELLER' | 'STAFF' | 'DRIVER';
  issuerId: string;
  secretHash: string;
  status: GrantStatus;
  /** The link can still be accepted by the clock (status aside). */
  linkOpen: boolean;
  linkExpiresAt: Date;
  revokedAt: Date | null;
  bookingOwnerUserId: string | null;
  company: { name_ar: string; name_en: string };
}

/** An instant as epoch milliseconds (the pool hands timestamps over as text). */
/** SQL: a timestamp column as epoch milliseconds (the pool hands timestamps over as text; this is a number). */
export const epochMs = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;

export async function findShareGrant(db: Database, grantId: string): Promise<ShareGrantRow | null> {
  const [row] = await db.query<
    Omit<ShareGrantRow, 'company' | 'linkExpiresAt' | 'revokedAt'> & {
      nameAr: string;
      nameEn: string;
      linkExpiresAt: number;
      revokedAt: number | null;
    }
  >(
    `select g.id, g.booking_id as "bookingId", g.company_id as "companyId", g.document_kind as "documentKind",
            g.presentation, g.issuer_kind as "issuerKind", g.issuer_id as "issuerId", g.secret_hash as "secretHash",
            g.status, g.link_expires_at > now() as "linkOpen", ${epochMs('g.link_expires_at')} as "linkExpiresAt",
            ${epochMs('g.revoked_at')} as "revokedAt",
            b.owner_user_id as "bookingOwnerUserId", c.name_ar as "nameAr", c.name_en as "nameEn"
       from document_share_grants g
       join bookings b on b.id = g.booking_id
       join companies c on c.id = g.company_id
      where g.id = $1`,
    [grantId],
  );
  if (!row) return null;
  const { nameAr, nameEn, linkExpiresAt, revokedAt, ...grant } = row;
  return {
    ...grant,
    linkExpiresAt: new Date(linkExpiresAt),
    revokedAt: revokedAt === null ? null : new Date(revokedAt),
    company: { name_ar: nameAr, name_en: nameEn },
  };
}

export interface RecipientSessionSummary {
  expiresAt: Date;
  lastSeenAt: Date;
}

export async function recipientSessionSummary(
  db: Database,
  sessionId: string,
): Promise<RecipientSessionSummary> {
  const [row] = await db.query<{ expiresAt: number; lastSeenAt: number }>(
    `select ${epochMs('expires_at')} as "expiresAt", ${epochMs('last_seen_at')} as "lastSeenAt"
       from share_recipient_sessions where id = $1`,
    [sessionId],
  );
  if (!row) throw new Error(`recipient session ${sessionId} vanished`);
  return { expiresAt: new Date(row.expiresAt), lastSeenAt: new Date(row.lastSeenAt) };
}
