import { Migration } from '@mikro-orm/migrations';

/**
 * Identity and access for the four surfaces.
 *
 * Travellers: an auth user (`users`: how someone signs in) points at one canonical traveller
 * profile (`passengers`: the operational record bookings and favorites hang on). Merging two
 * sign-in identities repoints users.passenger_id; a passenger merged away keeps merged_into_id.
 * Sessions hold a family of rotating refresh tokens; only hashes of secrets are stored.
 *
 * Company staff: staff_users with argon2id passwords, a membership (role) per company, and
 * server-side sessions. Administrators: admins with permissions, optional TOTP, sessions and the
 * audit log.
 */
export class Migration20261121020000_identity extends Migration {
  override up(): void {
    this.addSql(`
      create table passengers (
        id uuid primary key default gen_random_uuid(),
        phone text unique,
        name text not null default '',
        email text,
        gender text not null default '',
        national_id text not null default '',
        merged_into_id uuid references passengers(id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table users (
        id uuid primary key default gen_random_uuid(),
        phone text unique,
        email text,
        email_verified_at timestamptz,
        name text not null default '',
        password_hash text,
        passenger_id uuid references passengers(id),
        -- Server-set metadata only (inventory_scope, demo_company_id); never written from a request.
        app_metadata jsonb not null default '{}',
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'DISABLED')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index users_email_key on users (lower(email)) where email is not null`);
    this.addSql(`create index users_passenger_idx on users (passenger_id)`);

    // External sign-in identities (the identity provider's subject) linked to a user.
    this.addSql(`
      create table user_identities (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users(id) on delete cascade,
        provider text not null check (provider in ('idp')),
        subject text not null,
        email text,
        created_at timestamptz not null default now(),
        unique (provider, subject)
      )`);
    this.addSql(`create index user_identities_user_idx on user_identities (user_id)`);

    this.addSql(`
      create table traveller_sessions (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users(id) on delete cascade,
        channel text not null default 'web' check (channel in ('web', 'mobile', 'pwa')),
        created_at timestamptz not null default now(),
        last_refreshed_at timestamptz,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        revoked_reason text
      )`);
    this.addSql(`create index traveller_sessions_user_idx on traveller_sessions (user_id)`);

    // Each refresh rotates: the used token gets used_at and a child. Presenting a used token again
    // is reuse: the whole session (family) is revoked.
    this.addSql(`
      create table refresh_tokens (
        id uuid primary key default gen_random_uuid(),
        session_id uuid not null references traveller_sessions(id) on delete cascade,
        token_hash text not null unique,
        parent_id uuid references refresh_tokens(id),
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz
      )`);
    this.addSql(`create index refresh_tokens_session_idx on refresh_tokens (session_id)`);

    // Local one-time codes (pre-launch mode and complete-phone challenges when no provider keeps them).
    this.addSql(`
      create table otp_challenges (
        id uuid primary key default gen_random_uuid(),
        phone text not null,
        channel text not null,
        code_hash text,
        provider_reference text,
        attempts integer not null default 0,
        max_attempts integer not null default 5,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz
      )`);
    this.addSql(`create index otp_challenges_phone_idx on otp_challenges (phone, created_at desc)`);

    this.addSql(`
      create table email_tokens (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users(id) on delete cascade,
        purpose text not null check (purpose in ('VERIFY_EMAIL', 'RESET_PASSWORD')),
        email text not null,
        token_hash text not null unique,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz
      )`);

    this.addSql(`
      create table idp_nonces (
        flow_id uuid primary key,
        nonce_hash text not null,
        channel text not null check (channel in ('web', 'pwa', 'link')),
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz
      )`);

    this.addSql(`
      create table favorites (
        id uuid primary key default gen_random_uuid(),
        passenger_id uuid not null references passengers(id),
        origin_city_id uuid not null references cities(id),
        dest_city_id uuid not null references cities(id),
        created_at timestamptz not null default now(),
        unique (passenger_id, origin_city_id, dest_city_id),
        check (origin_city_id <> dest_city_id)
      )`);
    this.addSql(`create index favorites_passenger_idx on favorites (passenger_id, created_at desc)`);

    this.addSql(`
      create table staff_users (
        id uuid primary key default gen_random_uuid(),
        email text not null,
        password_hash text not null,
        name text not null default '',
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'DISABLED')),
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index staff_users_email_key on staff_users (lower(email))`);

    this.addSql(`
      create table company_memberships (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        staff_user_id uuid not null references staff_users(id),
        role text not null check (role in ('OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT', 'DRIVER')),
        active boolean not null default true,
        created_at timestamptz not null default now(),
        unique (company_id, staff_user_id)
      )`);

    this.addSql(`
      create table staff_sessions (
        id uuid primary key default gen_random_uuid(),
        staff_user_id uuid not null references staff_users(id),
        membership_id uuid not null references company_memberships(id),
        token_hash text not null unique,
        csrf_token_hash text not null,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        revoked_at timestamptz
      )`);

    this.addSql(`
      create table admins (
        id uuid primary key default gen_random_uuid(),
        email text not null,
        password_hash text not null,
        name text not null default '',
        role text not null check (role in ('SUPER_ADMIN', 'ADMIN', 'SUPPORT', 'ANALYST')),
        permissions text[] not null default '{}',
        totp_required boolean not null default false,
        totp_secret text,
        totp_confirmed_at timestamptz,
        recovery_code_hashes text[] not null default '{}',
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'DISABLED')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index admins_email_key on admins (lower(email))`);

    this.addSql(`
      create table admin_sessions (
        id uuid primary key default gen_random_uuid(),
        admin_id uuid not null references admins(id),
        token_hash text not null unique,
        csrf_token_hash text not null,
        second_factor_at timestamptz,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        revoked_at timestamptz
      )`);

    this.addSql(`
      create table audit_log (
        id bigint generated always as identity primary key,
        actor_kind text not null check (actor_kind in ('ADMIN', 'STAFF', 'TRAVELLER', 'SYSTEM', 'DRIVER')),
        actor_id uuid,
        action text not null,
        target_kind text,
        target_id text,
        details jsonb not null default '{}',
        ip text,
        request_id text,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index audit_log_created_idx on audit_log (created_at desc)`);
    this.addSql(`create index audit_log_actor_idx on audit_log (actor_kind, actor_id, created_at desc)`);
  }

  override down(): void {
    for (const table of [
      'audit_log',
      'admin_sessions',
      'admins',
      'staff_sessions',
      'company_memberships',
      'staff_users',
      'favorites',
      'idp_nonces',
      'email_tokens',
      'otp_challenges',
      'refresh_tokens',
      'traveller_sessions',
      'user_identities',
      'users',
      'passengers',
    ]) {
      this.addSql(`drop table if exists ${table} cascade`);
    }
  }
}
