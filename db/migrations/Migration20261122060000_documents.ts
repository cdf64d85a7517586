import { Migration } from '@mikro-orm/migrations';

/**
 * Documents (SPEC "Tickets and documents"): immutable snapshots, their rendered bytes and the
 * access log.
 *
 * A snapshot freezes everything a template prints (data) for one kind and locale. Its fingerprint
 * is the SHA-256 of kind, locale and the canonical JSON of data; the same booking asking for the
 * same content reuses the snapshot (unique booking_id + fingerprint), so it downloads
 * byte-identical. booking_id is the booking the client names (the compatibility bookings row, or
 * the journey for journey documents), hence no foreign key to one table.
 *
 * A render row is written once per snapshot (primary key snapshot_id, insert ... on conflict do
 * nothing): the first stored bytes win, and the checksum is stored with them before any byte is
 * sent. The access log records each view or download with the checksum and size that were sent.
 */
export class Migration20261122060000_documents extends Migration {
  override up(): void {
    this.addSql(`
      create table document_snapshots (
        id uuid primary key default gen_random_uuid(),
        kind text not null check (kind in (
          'TICKET', 'BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT', 'REFUND_NOTICE')),
        locale text not null check (locale in ('ar', 'en')),
        booking_id uuid not null,
        company_id uuid not null references companies(id),
        owner_user_id uuid references users(id),
        number text,
        data jsonb not null,
        fingerprint text not null check (fingerprint ~ '^[0-9a-f]{64}$'),
        created_at timestamptz not null default now(),
        unique (booking_id, fingerprint)
      )`);
    this.addSql(
      `create index document_snapshots_company_idx on document_snapshots (company_id, created_at desc)`,
    );
    this.addSql(
      `create index document_snapshots_number_idx on document_snapshots (company_id, kind, number) where number is not null`,
    );

    this.addSql(`
      create table document_renders (
        snapshot_id uuid primary key references document_snapshots(id),
        bytes bytea not null,
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        size integer not null check (size > 0),
        rendered_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table document_access_log (
        id uuid primary key default gen_random_uuid(),
        snapshot_id uuid not null references document_snapshots(id),
        actor_kind text not null check (actor_kind in ('TRAVELLER', 'STAFF', 'DRIVER', 'ADMIN', 'SHARE_RECIPIENT')),
        actor_id text not null,
        action text not null check (action in ('VIEW', 'DOWNLOAD')),
        sha256 text not null,
        size integer not null,
        request_id text,
        at timestamptz not null default now()
      )`);
    this.addSql(
      `create index document_access_log_snapshot_idx on document_access_log (snapshot_id, at desc)`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists document_access_log');
    this.addSql('drop table if exists document_renders');
    this.addSql('drop table if exists document_snapshots');
  }
}
