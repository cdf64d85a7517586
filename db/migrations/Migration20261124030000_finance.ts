import { Migration } from '@mikro-orm/migrations';

/**
 * Company finance (issue 14): cash shifts, their documented movements, and the ledger's decision
 * columns.
 *
 * - `cash_shifts`: one till session of a company, OPEN until a person closes it (never
 *   automatically). At most one OPEN shift per company: the partial unique index is the backstop
 *   behind the `cash-shift/{companyId}` workflow id. `overdue_since` is set once the shift stayed
 *   open longer than CASH_SHIFT_MAX_HOURS. CLOSE records declared, expected and the difference
 *   (declared − expected) together.
 * - `cash_shift_movements`: money put in (IN) or taken out (OUT) of the till with a reason; a
 *   cash refund paid from the till is an OUT movement naming its payment (kind REFUND).
 * - `payment_operations.cash_shift_id` now references the shift a verified collection went into;
 *   refunds and cancellations record who decided them and when.
 * - The ledger reads one table: a booking whose payment fact is PAID or REFUNDED without any
 *   collection record gets its fact as a `booking` line here (backfill), so no payment is
 *   counted twice and none is missing. recordCashCollection is the only writer of PAID and always
 *   writes its operation first.
 */
export class Migration20261124030000_finance extends Migration {
  override up(): void {
    this.addSql(`
      create table cash_shifts (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        status text not null default 'OPEN' check (status in ('OPEN', 'CLOSED')),
        currency text not null default 'SYP',
        opening_balance bigint not null check (opening_balance >= 0),
        opened_by uuid not null references staff_users(id),
        opened_at timestamptz not null default now(),
        overdue_since timestamptz,
        note text check (char_length(note) <= 1000),
        declared_amount bigint check (declared_amount >= 0),
        expected_amount bigint,
        difference bigint,
        closed_by uuid references staff_users(id),
        closed_at timestamptz,
        created_at timestamptz not null default now(),
        check ((status = 'CLOSED') = (closed_at is not null)),
        check (status = 'OPEN' or (declared_amount is not null and expected_amount is not null
          and difference = declared_amount - expected_amount and closed_by is not null))
      )`);
    this.addSql(`create unique index cash_shifts_one_open on cash_shifts (company_id) where status = 'OPEN'`);
    this.addSql(`create index cash_shifts_company_idx on cash_shifts (company_id, opened_at desc)`);

    this.addSql(`
      create table cash_shift_movements (
        id uuid primary key default gen_random_uuid(),
        shift_id uuid not null references cash_shifts(id),
        company_id uuid not null references companies(id),
        kind text not null default 'ADJUSTMENT' check (kind in ('ADJUSTMENT', 'REFUND')),
        direction text not null check (direction in ('IN', 'OUT')),
        amount bigint not null check (amount > 0),
        reason text not null check (char_length(reason) between 3 and 500),
        payment_id uuid references payment_operations(id),
        recorded_by uuid not null references staff_users(id),
        recorded_at timestamptz not null default now(),
        check ((kind = 'REFUND') = (payment_id is not null))
      )`);
    this.addSql(
      `create index cash_shift_movements_shift_idx on cash_shift_movements (shift_id, recorded_at)`,
    );
    this.addSql(
      `create unique index cash_shift_movements_one_refund on cash_shift_movements (payment_id) where kind = 'REFUND'`,
    );

    this.addSql(`alter table payment_operations
      add constraint payment_operations_cash_shift_fk foreign key (cash_shift_id) references cash_shifts(id)`);
    this.addSql(`alter table payment_operations add column refunded_by uuid references staff_users(id)`);
    this.addSql(`alter table payment_operations add column cancelled_by uuid references staff_users(id)`);
    this.addSql(`alter table payment_operations add column cancelled_at timestamptz`);
    // The ledger's page and its statistics for a period read this index alone (index-only scans);
    // it replaces (company_id, created_at desc), its prefix.
    this.addSql(`create index payment_operations_ledger_idx on payment_operations (company_id, created_at, id)
      include (status, source, provider, amount)`);
    this.addSql(`drop index if exists payment_operations_company_idx`);
    this.rollup();

    this.addSql(`
      insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount, currency,
                                      status, collected_at, refunded_at, created_at, updated_at)
      select b.company_id, b.id, b.owner_user_id, 'CASH', 'cash', 'booking', b.total_price, b.currency,
             case b.payment_status when 'PAID' then 'COMPLETED' else 'REFUNDED' end,
             b.updated_at, case b.payment_status when 'REFUNDED' then b.updated_at end, b.updated_at, b.updated_at
        from bookings b
       where b.payment_status in ('PAID', 'REFUNDED')
         and not exists (select 1 from payment_operations o where o.booking_id = b.id
                           and o.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED'))`);
  }

  /**
   * `payment_ledger_daily`: the ledger's statistics per company, Damascus day, status, source and
   * provider (count and amount), kept by a trigger on payment_operations in the writing
   * transaction, whoever writes (verify, the operations room's REFUND_DUE, the traveller's cash
   * announcement, imports). The statistics of a period are then a few hundred rows instead of
   * every line of it: a month of a company with a million operations is about 40,000 lines.
   */
  private rollup(): void {
    this.addSql(`
      create table payment_ledger_daily (
        company_id uuid not null references companies(id),
        day date not null,
        status text not null,
        source text not null,
        provider text not null,
        count integer not null default 0,
        amount bigint not null default 0,
        primary key (company_id, day, status, source, provider)
      )`);
    this
      .addSql(`create function payment_ledger_daily_add(company uuid, at timestamptz, status text, source text,
                                                           provider text, n integer, money bigint)
      returns void language sql as $$
        insert into payment_ledger_daily (company_id, day, status, source, provider, count, amount)
        values (company, (at at time zone 'Asia/Damascus')::date, status, source, provider, n, money)
        on conflict (company_id, day, status, source, provider)
        do update set count = payment_ledger_daily.count + excluded.count,
                      amount = payment_ledger_daily.amount + excluded.amount
      $$`);
    this.addSql(`create function payment_ledger_daily_apply() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          perform payment_ledger_daily_add(old.company_id, old.created_at, old.status, old.source, old.provider,
                                           -1, -old.amount);
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform payment_ledger_daily_add(new.company_id, new.created_at, new.status, new.source, new.provider,
                                           1, new.amount);
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger payment_ledger_daily_rows after insert or delete on payment_operations
      for each row execute function payment_ledger_daily_apply()`);
    this.addSql(`create trigger payment_ledger_daily_changes after update on payment_operations
      for each row when ((old.company_id, old.created_at, old.status, old.source, old.provider, old.amount)
                         is distinct from (new.company_id, new.created_at, new.status, new.source, new.provider, new.amount))
      execute function payment_ledger_daily_apply()`);
    this.addSql(`insert into payment_ledger_daily (company_id, day, status, source, provider, count, amount)
      select company_id, (created_at at time zone 'Asia/Damascus')::date, status, source, provider, count(*), sum(amount)
        from payment_operations group by 1, 2, 3, 4, 5`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists payment_ledger_daily_changes on payment_operations`);
    this.addSql(`drop trigger if exists payment_ledger_daily_rows on payment_operations`);
    this.addSql(`drop function if exists payment_ledger_daily_apply()`);
    this.addSql(
      `drop function if exists payment_ledger_daily_add(uuid, timestamptz, text, text, text, integer, bigint)`,
    );
    this.addSql(`drop table if exists payment_ledger_daily`);
    this.addSql(
      `create index if not exists payment_operations_company_idx on payment_operations (company_id, created_at desc)`,
    );
    this.addSql(`drop index if exists payment_operations_ledger_idx`);
    this.addSql(`alter table payment_operations drop column if exists cancelled_at`);
    this.addSql(`alter table payment_operations drop column if exists cancelled_by`);
    this.addSql(`alter table payment_operations drop column if exists refunded_by`);
    this.addSql(`alter table payment_operations drop constraint if exists payment_operations_cash_shift_fk`);
    this.addSql(`drop table if exists cash_shift_movements`);
    this.addSql(`drop table if exists cash_shifts`);
  }
}
