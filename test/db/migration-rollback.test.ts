import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/orm.js';
import { seedDemo } from '../../db/seed/demo.js';
import { ensureAccount } from '../../db/writes/loyalty/index.js';
import { damascusDate } from '../../domain/time.js';
import { useTestApp } from '../support/harness.js';
import { loyaltyProgram } from '../support/loyalty.js';
import {
  emptyDatabase,
  isAbout,
  PREVIOUS_RELEASE,
  RELEASE,
  rollBackAndForward,
  schemaDiff,
  schemaDump,
  type SchemaDump,
} from '../support/migration-rollback.js';
import { advance, boardAndPay, bookSeats, dispatch, operationsWorld } from '../support/operations.js';
import { usePrivateDatabase } from '../support/private-database.js';

/**
 * README "Rolling back": an operator rolls the newest release back (its migrations' down(), newest
 * first) and forward again (up()). What the release wrote and nothing else could tell again stays
 * through down() (nullable columns and tables the code before it never reads), and up() again only
 * adds what is missing and fills what is still empty, so the round trip loses nothing.
 */

/** What each down() keeps: a table, or a column (`table.column`). */
const KEPT: Record<string, string[]> = {
  Migration20261206050000_voucher_forfeited_at: ['loyalty_redemptions.forfeited_at'],
  Migration20261206145900_driver_cash_collection: ['payment_operations.collected_by'],
  Migration20261206184500_unlinked_identities: ['unlinked_identities'],
  Migration20261206200000_frequency_recounts_due: ['customer_frequency_recounts_due'],
  Migration20261207000000_trip_earning_terms: [
    'trips.earning_points_per_100',
    'trips.earning_referral_points',
  ],
};

describe('rolling the release back and forward on an empty database', () => {
  let reference: Awaited<ReturnType<typeof emptyDatabase>>;
  let rolled: Awaited<ReturnType<typeof emptyDatabase>>;
  /** The schema after each migration's up() (migration name → schema), the release before it first. */
  const upTo = new Map<string, SchemaDump>();
  /** The schema after each migration's down() (migration name → schema). */
  const afterDown = new Map<string, SchemaDump>();
  const errors: string[] = [];
  let full: SchemaDump;
  let again: SchemaDump;

  beforeAll(async () => {
    reference = await emptyDatabase('rollback_ref');
    rolled = await emptyDatabase('rollback_rolled');
    for (const name of [PREVIOUS_RELEASE, ...RELEASE]) {
      await reference.db.orm.migrator.up({ to: name });
      upTo.set(name, await schemaDump(reference.db));
    }
    await rolled.db.orm.migrator.up();
    full = await schemaDump(rolled.db);
    for (const name of [...RELEASE].reverse()) {
      try {
        const undone = await rolled.db.orm.migrator.down();
        expect(undone.map((m) => m.name)).toEqual([name]);
        afterDown.set(name, await schemaDump(rolled.db));
      } catch (error) {
        errors.push(`down ${name}: ${(error as Error).message}`);
        break;
      }
    }
    try {
      await rolled.db.orm.migrator.up();
    } catch (error) {
      errors.push(`up again: ${(error as Error).message}`);
    }
    again = await schemaDump(rolled.db);
  }, 300_000);

  afterAll(async () => {
    await rolled?.drop();
    await reference?.drop();
  });

  it('every down() and the up() again run', () => {
    expect(errors).toEqual([]);
  });

  it('the schema after the round trip is the schema before it', () => {
    expect(schemaDiff(full, again)).toEqual([]);
  });

  for (const [index, name] of RELEASE.entries()) {
    const previous = index === 0 ? PREVIOUS_RELEASE : RELEASE[index - 1]!;
    /** Kept by this down() and by those that ran before it (the newer migrations'). */
    const kept = RELEASE.slice(index).flatMap((migration) => KEPT[migration] ?? []);
    const own = KEPT[name] ?? [];
    const keeps = own.length ? `, but for ${own.join(', ')}, which it keeps` : '';

    it(`${name}.down() leaves the schema as ${previous}.up() left it${keeps}`, () => {
      const after = afterDown.get(name);
      expect(after, 'down() ran').toBeDefined();
      const diff = schemaDiff(upTo.get(previous)!, after!);
      const keptLine = (line: string) =>
        line.includes(' extra: ') && kept.some((object) => isAbout(line, object));
      expect(diff.filter((line) => !keptLine(line))).toEqual([]);
      for (const object of own) {
        expect(
          diff.some((line) => isAbout(line, object) && line.startsWith('columns extra: ')),
          `${object} kept`,
        ).toBe(true);
      }
    });
  }
});

describe('rolling the release back and forward over the demo world', () => {
  let rolled: Awaited<ReturnType<typeof emptyDatabase>>;
  let db: Database;
  const errors: string[] = [];
  /** What the release's code wrote, as it writes it, before the round trip. */
  const written: Record<string, Record<string, unknown> | undefined> = {};
  const derived: Record<string, unknown[]> = {};
  const derivedAgain: Record<string, unknown[]> = {};

  /** Rows the migrations derive (shares, recounts, backfills, relabels): they come out as they were. */
  const DERIVED: Record<string, string> = {
    'booking shares of their trip': `select id, trip_share_bp from bookings order by id`,
    'booking statistics': `select company_id, basis, day, route_id, sum(bookings)::int bookings, sum(sold)::int sold,
                sum(seats_sold)::int seats_sold, sum(seats_sold_bp)::bigint seats_sold_bp, sum(revenue)::bigint revenue,
                sum(discount)::bigint discount, sum(cancelled)::int cancelled
           from (select company_id, basis, day, route_id, bookings, sold, seats_sold, seats_sold_bp, revenue, discount, cancelled
                   from booking_stats_daily
                 union all
                 select company_id, basis, day, route_id, bookings, sold, seats_sold, seats_sold_bp, revenue, discount, cancelled
                   from booking_stats_deltas) s
          group by 1, 2, 3, 4
         having sum(bookings) <> 0 or sum(sold) <> 0 or sum(seats_sold) <> 0 or sum(revenue) <> 0 or sum(cancelled) <> 0
          order by 1, 2, 3, 4`,
    "completed trips' earning terms": `select id, status, earning_points_per_100, earning_referral_points from trips
                                     where earning_points_per_100 is not null or status = 'COMPLETED' order by id`,
    "trips' seats": `select id, seats_total from trips order by id`,
    'bus layouts': `select bus_id, version, status, seat_count from bus_layouts order by bus_id, version`,
    'voucher forfeits': `select id, status, forfeited_at from loyalty_redemptions order by id`,
    'payment lines': `select id, status, source, collected_by, cancelled_at from payment_operations order by id`,
    'credential revocations': `select ticket_id, reason, company_id, revoked_at from credential_revocations order by ticket_id, revoked_at`,
    'audit row kinds': `select id, action, actor_kind, target_kind from audit_log order by id`,
    'confirmation request reasons': `select id, status, reason, decided_by from confirmation_requests order by id`,
    'unlinked identities': `select user_id, provider, subject, unlinked_at from unlinked_identities order by 1, 2, 3`,
    'frequency recounts due': `select company_id, marked_at from customer_frequency_recounts_due order by 1`,
  };

  beforeAll(async () => {
    rolled = await emptyDatabase('rollback_demo');
    db = rolled.db;
    await db.orm.migrator.up();
    await seedDemo(db, { firstDate: damascusDate(new Date()) });

    // A traveller unlinked an identity-provider subject (db/writes/traveller-identity/link.ts).
    [written.unlinked] = await db.query(
      `insert into unlinked_identities (user_id, provider, subject)
       select id, 'idp', 'rollback-subject' from users order by id limit 1 returning user_id, subject, unlinked_at`,
    );
    // A driver recorded taking a booking's cash at the door: the announced PENDING line taken over
    // (db/writes/driver-collections.ts: source = 'driver', collected_by = the driver).
    [written.driverLine] = await db.query(
      `update payment_operations o set source = 'driver', collected_by = s.driver, updated_at = now()
         from (select p.id, (select m.staff_user_id from company_memberships m
                              where m.company_id = p.company_id and m.role = 'DRIVER' order by m.staff_user_id limit 1) as driver
                 from payment_operations p
                where p.status = 'PENDING' and p.method = 'CASH'
                  and not exists (select 1 from payment_operations d where d.booking_id = p.booking_id and d.source = 'driver'
                                    and d.status in ('PENDING', 'COMPLETED'))
                order by p.id limit 1) s
        where o.id = s.id and s.driver is not null
        returning o.id, o.collected_by`,
    );
    // A compensation refund forfeited the voucher that paid a booking which lives on (confirmed, not
    // refunded: no rule of the migration could tell it again), a week ago
    // (db/writes/loyalty/voucher-return.ts forfeitVouchers).
    const [paid] = await db.query<{
      company_id: string;
      user_id: string;
      reward_id: string;
      booking_id: string;
    }>(
      `select b.company_id, (select id from users order by id limit 1) as user_id, w.id as reward_id, b.id as booking_id
         from bookings b join loyalty_rewards w on w.company_id = b.company_id
        where b.status = 'CONFIRMED' and b.payment_status <> 'REFUNDED'
        order by b.id, w.id limit 1`,
    );
    if (paid) {
      [written.forfeited] = await db.query(
        `insert into loyalty_redemptions (code, account_id, company_id, reward_id, user_id, points_used, status,
                                          expires_at, used_at, used_booking_ids, forfeited_at)
         values ('RWD-RLBACK22', $1, $2, $3, $4, 100, 'USED', now() + interval '30 days', now() - interval '8 days',
                 array[$5::uuid], now() - interval '7 days')
         returning id, forfeited_at`,
        [
          await ensureAccount(db.pool, paid.company_id, paid.user_id),
          paid.company_id,
          paid.reward_id,
          paid.user_id,
          paid.booking_id,
        ],
      );
    }
    // The analytics fold marked a company whose travel frequency was never counted yet, an hour ago
    // (db/writes/analytics-rollup.ts).
    [written.recountDue] = await db.query(
      `insert into customer_frequency_recounts_due (company_id, marked_at)
       select c.id, now() - interval '1 hour' from companies c
        where not exists (select 1 from customer_frequency_recounts_due d where d.company_id = c.id)
        order by c.id limit 1
       returning company_id, marked_at`,
    );

    for (const [key, sql] of Object.entries(DERIVED)) derived[key] = await db.query(sql);
    errors.push(...(await rollBackAndForward(db)));
    for (const [key, sql] of Object.entries(DERIVED)) derivedAgain[key] = await db.query(sql);
  }, 600_000);

  afterAll(async () => {
    await rolled?.drop();
  });

  it('every down() and the up() again run over the demo rows', () => {
    expect(errors).toEqual([]);
  });

  it('an identity-provider subject the traveller unlinked stays unlinked', async () => {
    expect(written.unlinked, 'a demo user to unlink from').toBeDefined();
    const rows = await db.query(
      `select user_id, subject, unlinked_at from unlinked_identities where subject = 'rollback-subject'`,
    );
    expect(rows).toEqual([written.unlinked]);
  });

  it('the driver holding a collected cash line is still named on it', async () => {
    expect(written.driverLine, 'a demo PENDING cash line').toBeDefined();
    const rows = await db.query(`select id, collected_by from payment_operations where id = $1`, [
      written.driverLine!.id,
    ]);
    expect(rows).toEqual([written.driverLine]);
  });

  it('a voucher a compensation forfeited stays forfeited, at the time it was', async () => {
    expect(written.forfeited, 'a demo account, reward and confirmed booking').toBeDefined();
    const rows = await db.query(`select id, forfeited_at from loyalty_redemptions where id = $1`, [
      written.forfeited!.id,
    ]);
    expect(rows).toEqual([written.forfeited]);
  });

  it('a company marked for a travel-frequency recount stays marked since then', async () => {
    expect(written.recountDue, 'a demo company not marked yet').toBeDefined();
    const rows = await db.query(
      `select company_id, marked_at from customer_frequency_recounts_due where company_id = $1`,
      [written.recountDue!.company_id],
    );
    expect(rows).toEqual([written.recountDue]);
  });

  for (const key of Object.keys(DERIVED)) {
    it(`${key} come out as they were`, () => {
      expect(derivedAgain[key]).toEqual(derived[key]);
    });
  }
});

describe('rolling the release back and forward after its code ran', () => {
  const database = usePrivateDatabase('rollback_paths');
  const app = useTestApp({ DATABASE_URL: database.url });

  it('a trip completed at 10 points per 100 keeps 10, though the programme pays 20 since', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    await loyaltyProgram(app.db, world.companyId, { pointsPer100: 10, referralPoints: 0 });
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    await boardAndPay(app, world, booked);
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE', 'COMPLETE');
    const terms = `select earning_points_per_100 as points from trips where id = $1`;
    expect(await app.db.query(terms, [world.trip.tripId])).toEqual([{ points: 10 }]);
    // The company raises its terms afterwards: trips completed before keep theirs.
    await app.db.query(`update loyalty_programs set points_per_100 = 20 where company_id = $1`, [
      world.companyId,
    ]);

    await app.db.orm.migrator.down({ to: PREVIOUS_RELEASE });
    await app.db.orm.migrator.up();

    expect(await app.db.query(terms, [world.trip.tripId]), 'the terms COMPLETE settled').toEqual([
      { points: 10 },
    ]);
  }, 120_000);

  it("a kept booking's compensation revocation stays BOOKING_COMPENSATED once a trip CANCEL ended the booking", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const kept = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    // A compensation refund keeps the booking and revokes its ticket as BOOKING_COMPENSATED
    // (db/writes/payment-decisions.ts); written here as it leaves the row.
    await app.db.query(
      `insert into credential_revocations (ticket_id, reason, revoked_at, company_id)
       values ($1, 'BOOKING_COMPENSATED', now(), $2)`,
      [kept.ticketIds[0], world.companyId],
    );
    const cancel = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(cancel.status, cancel.text).toBe(200);
    const [booking] = await app.db.query(`select status from bookings where id = $1`, [kept.bookingId]);
    expect(booking).toEqual({ status: 'CANCELLED' });
    const reason = `select reason from credential_revocations where ticket_id = $1`;
    expect(await app.db.query(reason, [kept.ticketIds[0]])).toEqual([{ reason: 'BOOKING_COMPENSATED' }]);

    await app.db.orm.migrator.down({ to: PREVIOUS_RELEASE });
    await app.db.orm.migrator.up();

    expect(await app.db.query(reason, [kept.ticketIds[0]])).toEqual([{ reason: 'BOOKING_COMPENSATED' }]);
  }, 120_000);
});
