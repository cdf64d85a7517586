import { Migration } from '@mikro-orm/migrations';

/**
 * Document share grants (SPEC "Document share grant"): one booking document shared once to a
 * second device. A grant is created by an issuer (the traveller who owns the booking, a company
 * user, or the trip's driver), accepted at most once (the one-use link), and ends revoked or
 * expired. The workflow share-grant/{grantId} makes every transition; these rows are its record.
 *
 * Only hashes of the link secret and of the recipient session token are stored. What the recipient
 * did with the document goes to document_access_log (actor SHARE_RECIPIENT, the grant id).
 */
export class Migration20261122061000_document_shares extends Migration {
  override up(): void {
    this.addSql(`
      create table document_share_grants (
        id uuid primary key,
        booking_id uuid not null references bookings(id),
        company_id uuid not null references companies(id),
        document_kind text not null
          check (document_kind in ('BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT')),
        presentation text not null check (presentation in ('DOWNLOAD', 'VIEW')),
        issuer_kind text not null check (issuer_kind in ('TRAVELLER', 'STAFF', 'DRIVER')),
        -- users.id of a traveller, staff_users.id of a company user or driver
        issuer_id uuid not null,
        -- TRAVELLER, or the company membership role the issuer acted with
        issuer_role text not null,
        secret_hash text not null,
        status text not null default 'CREATED' check (status in ('CREATED', 'ACCEPTED', 'REVOKED', 'EXPIRED')),
        link_expires_at timestamptz not null,
        accepted_at timestamptz,
        revoked_at timestamptz,
        revoked_by uuid,
        revoked_by_kind text check (revoked_by_kind in ('TRAVELLER', 'STAFF', 'DRIVER')),
        expired_at timestamptz,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index document_share_grants_booking_idx on document_share_grants (booking_id)`);
    this.addSql(
      `create index document_share_grants_company_idx on document_share_grants (company_id, created_at desc)`,
    );

    // One recipient session per grant, ever: the database refuses a second accept on its own.
    this.addSql(`
      create table share_recipient_sessions (
        id uuid primary key default gen_random_uuid(),
        grant_id uuid not null unique references document_share_grants(id),
        token_hash text not null unique,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        ended_at timestamptz,
        ended_reason text check (ended_reason in ('REVOKED', 'EXPIRED', 'IDLE'))
      )`);
  }

  override down(): void {
    this.addSql('drop table if exists share_recipient_sessions');
    this.addSql('drop table if exists document_share_grants');
  }
}
