import { Migration } from '@mikro-orm/migrations';

/**
 * Loyalty: one program per company with its tiers and reward catalogue, one account per traveller
 * and company (balances never merge across companies), the points ledger, vouchers (redemptions)
 * and referrals.
 *
 * A reward's catalogue `code` is what the company shows in its catalogue; a voucher `code`
 * (`RWD-` + 8 characters) is what redeeming creates and the only code a booking accepts.
 * Column checks keep each value sane on its own; whether a reward's fields fit its type (a
 * discount needs exactly one of percent or amount, a free trip needs a seat count) is checked when
 * a voucher is used (LOYALTY_REWARD_CONFIGURATION_INVALID), because companies edit rewards after
 * vouchers exist.
 */
export class Migration20261122051000_loyalty extends Migration {
  override up(): void {
    this.addSql(`
      create table loyalty_programs (
        company_id uuid primary key references companies(id),
        name_ar text not null,
        name_en text not null,
        active boolean not null default true,
        points_per_100 integer not null default 1 check (points_per_100 between 0 and 10000),
        referral_points integer not null default 0 check (referral_points >= 0),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table loyalty_tiers (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references loyalty_programs(company_id),
        name_ar text not null,
        name_en text not null,
        min_lifetime_points integer not null check (min_lifetime_points >= 0),
        multiplier_percent integer not null default 100 check (multiplier_percent between 1 and 1000),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (company_id, min_lifetime_points)
      )`);

    this.addSql(`
      create table loyalty_rewards (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references loyalty_programs(company_id),
        code text not null check (code !~* '^RWD-'),
        name_ar text not null,
        name_en text not null,
        type text not null check (type ~ '^[a-z_]+$'),
        discount_percent integer check (discount_percent is null or discount_percent between 1 and 100),
        discount_amount bigint check (discount_amount is null or discount_amount > 0),
        max_discount bigint check (max_discount is null or max_discount > 0),
        free_seats integer check (free_seats is null or free_seats > 0),
        points_cost integer not null check (points_cost > 0),
        min_subtotal bigint check (min_subtotal is null or min_subtotal >= 0),
        route_ids uuid[] not null default '{}',
        allowed_days integer[] not null default '{}' check (allowed_days <@ '{1,2,3,4,5,6,7}'::integer[]),
        voucher_valid_days integer not null default 30 check (voucher_valid_days between 1 and 365),
        active boolean not null default true,
        max_redemptions integer check (max_redemptions is null or max_redemptions > 0),
        redemption_count integer not null default 0 check (redemption_count >= 0),
        -- Set when the company deletes a reward that vouchers still point at: those vouchers stop working.
        archived_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (company_id, code),
        check (max_redemptions is null or redemption_count <= max_redemptions)
      )`);

    this.addSql(`
      create table loyalty_accounts (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references loyalty_programs(company_id),
        user_id uuid not null references users(id),
        passenger_id uuid references passengers(id),
        balance integer not null default 0 check (balance >= 0),
        lifetime_points integer not null default 0 check (lifetime_points >= 0),
        tier_id uuid references loyalty_tiers(id) on delete set null,
        referral_code text not null unique,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (company_id, user_id)
      )`);
    this.addSql(`create index loyalty_accounts_user_idx on loyalty_accounts (user_id)`);

    this.addSql(`
      create table loyalty_redemptions (
        id uuid primary key default gen_random_uuid(),
        code text not null unique check (code ~ '^RWD-[A-HJ-NP-Z2-9]{8}$'),
        account_id uuid not null references loyalty_accounts(id),
        company_id uuid not null references loyalty_programs(company_id),
        reward_id uuid not null references loyalty_rewards(id),
        user_id uuid not null references users(id),
        points_used integer not null check (points_used > 0),
        status text not null default 'ISSUED' check (status in ('ISSUED', 'USED', 'EXPIRED', 'CANCELLED')),
        expires_at timestamptz not null,
        used_at timestamptz,
        used_booking_ids uuid[] not null default '{}',
        discount bigint check (discount is null or discount >= 0),
        created_at timestamptz not null default now()
      )`);
    this.addSql(
      `create index loyalty_redemptions_account_idx on loyalty_redemptions (account_id, created_at desc)`,
    );

    this.addSql(`
      create table loyalty_transactions (
        id uuid primary key default gen_random_uuid(),
        account_id uuid not null references loyalty_accounts(id),
        company_id uuid not null references loyalty_programs(company_id),
        kind text not null check (kind in ('EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS')),
        points integer not null check (points <> 0),
        balance_after integer not null check (balance_after >= 0),
        booking_id uuid references bookings(id),
        redemption_id uuid references loyalty_redemptions(id),
        note text,
        -- clock_timestamp, not now(): entries written in one transaction (a trip's points, then a
        -- referral bonus) keep their order in the ledger.
        created_at timestamptz not null default clock_timestamp()
      )`);
    this.addSql(
      `create index loyalty_transactions_account_idx on loyalty_transactions (account_id, created_at desc)`,
    );
    // Earning (and a referral bonus) is credited once per booking, however often completion is replayed.
    this.addSql(`create unique index loyalty_transactions_once_per_booking
      on loyalty_transactions (account_id, kind, booking_id) where booking_id is not null`);

    this.addSql(`
      create table loyalty_referrals (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references loyalty_programs(company_id),
        referrer_account_id uuid not null references loyalty_accounts(id),
        referee_account_id uuid not null references loyalty_accounts(id),
        status text not null default 'PENDING' check (status in ('PENDING', 'REWARDED')),
        created_at timestamptz not null default now(),
        rewarded_at timestamptz,
        unique (company_id, referee_account_id),
        check (referrer_account_id <> referee_account_id)
      )`);
    this.addSql(`create index loyalty_referrals_referrer_idx on loyalty_referrals (referrer_account_id)`);
  }

  override down(): void {
    for (const table of [
      'loyalty_referrals',
      'loyalty_transactions',
      'loyalty_redemptions',
      'loyalty_accounts',
      'loyalty_rewards',
      'loyalty_tiers',
      'loyalty_programs',
    ]) {
      this.addSql(`drop table if exists ${table} cascade`);
    }
  }
}
