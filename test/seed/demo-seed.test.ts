import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { verify } from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase, migrate, type Database } from '../../db/orm.js';
import { readDemoAccounts } from '../../db/seed/demo-accounts.js';
import { DEMO_ADMIN_PASSWORD, DEMO_ADMIN_TOTP_SECRET } from '../../db/seed/demo-admins.js';
import { DEMO_COMPANIES, DEMO_COMPANY_ID, demoCompany } from '../../db/seed/demo-identities.js';
import { seedDemo, type DemoSummary } from '../../db/seed/demo.js';
import { CITIES } from '../../db/seed/syria.js';
import { companyInScope } from '../../domain/inventory-scope.js';
import { damascusDate } from '../../domain/time.js';
import { createDatabaseIfMissing, databaseUrl, dropDatabase } from '../../scripts/lib/services.js';

const companyIds = DEMO_COMPANIES.map((company) => company.id);
const cityNames = CITIES.map((city) => city.nameEn.toLowerCase());
const projectRoot = join(import.meta.dirname, '..', '..');

/** Row counts of the demo world, counted independently of the seed's own summary. */
async function demoRowCounts(db: Database) {
  const [row] = await db.query(
    `select
       (select count(*)::int from cities where lower(name_en) = any($2::text[])) as cities,
       (select count(*)::int from stops s join cities c on c.id = s.city_id where lower(c.name_en) = any($2::text[])
          and (s.company_id is null or s.company_id = any($1::uuid[]))) as stops,
       (select count(*)::int from companies where id = any($1::uuid[])) as companies,
       (select count(*)::int from pickup_locations where company_id = any($1::uuid[])) as pickup_locations,
       (select count(*)::int from buses where company_id = any($1::uuid[])) as buses,
       (select count(*)::int from bus_layouts l join buses b on b.id = l.bus_id where b.company_id = any($1::uuid[])) as layouts,
       (select count(*)::int from routes where company_id = any($1::uuid[])) as routes,
       (select count(*)::int from trips where company_id = any($1::uuid[])) as trips,
       (select count(*)::int from trip_stop_calls sc join trips t on t.id = sc.trip_id where t.company_id = any($1::uuid[])) as stop_calls`,
    [companyIds, cityNames],
  );
  return row!;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** Great-circle distance in km. */
function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) *
      Math.cos(b.latitude * rad) *
      Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/**
 * The seed runs in a database of its own (created beside the run's test database): its thousands
 * of production trips would otherwise change what other test files see in global rankings such
 * as popular routes.
 */
describe('demo seed', () => {
  const config = loadConfig();
  const serverUrl = databaseUrl(config.DATABASE_URL, 'postgres');
  const seedDatabase = `${new URL(config.DATABASE_URL).pathname.slice(1)}_demo_seed`;
  const seedDatabaseUrl = databaseUrl(config.DATABASE_URL, seedDatabase);
  let db: Database;
  let first: DemoSummary;
  let second: DemoSummary;
  let countsAfterFirst: Record<string, unknown>;
  let countsAfterSecond: Record<string, unknown>;

  beforeAll(async () => {
    await createDatabaseIfMissing(serverUrl, seedDatabase);
    db = await initDatabase({ ...config, DATABASE_URL: seedDatabaseUrl });
    await migrate(db);
    const firstDate = damascusDate(new Date());
    first = await seedDemo(db, { firstDate });
    countsAfterFirst = await demoRowCounts(db);
    second = await seedDemo(db, { firstDate });
    countsAfterSecond = await demoRowCounts(db);
  });

  afterAll(async () => {
    await db?.close();
    await dropDatabase(serverUrl, seedDatabase);
  });

  it('running the seed a second time adds nothing and creates no duplicates', () => {
    expect(Object.values(second.inserted).every((count) => count === 0)).toBe(true);
    expect(second.totals).toEqual(first.totals);
    expect(countsAfterSecond).toEqual(countsAfterFirst);
    expect(countsAfterSecond.trips).toBeGreaterThan(30 * 50);
  });

  it('has at least 8 Syrian cities with Arabic and English names and real coordinates', async () => {
    const cities = await db.query<{ name_ar: string; name_en: string; latitude: number; longitude: number }>(
      'select name_ar, name_en, latitude, longitude from cities where lower(name_en) = any($1::text[])',
      [cityNames],
    );
    expect(cities.length).toBeGreaterThanOrEqual(8);
    for (const city of cities) {
      expect(city.name_ar).toMatch(/^[\u0600-\u06FF ]+$/);
      expect(city.latitude).toBeGreaterThan(32.3);
      expect(city.latitude).toBeLessThan(37.4);
      expect(city.longitude).toBeGreaterThan(35.6);
      expect(city.longitude).toBeLessThan(42.4);
    }
    expect(cities.map((city) => city.name_ar)).toEqual(
      expect.arrayContaining(['دمشق', 'حلب', 'حمص', 'اللاذقية']),
    );
  });

  it('gives every city two to four public stops near it, with names, addresses and directions in both languages', async () => {
    type StopText =
      | 'city'
      | 'kind'
      | 'name_ar'
      | 'name_en'
      | 'address_ar'
      | 'address_en'
      | 'directions_ar'
      | 'directions_en';
    type StopRow = Record<StopText, string> &
      Record<'latitude' | 'longitude' | 'city_latitude' | 'city_longitude', number>;
    const stops = await db.query<StopRow>(
      `select c.name_en as city, c.latitude as city_latitude, c.longitude as city_longitude, s.kind, s.name_ar, s.name_en,
              s.address_ar, s.address_en, s.directions_ar, s.directions_en, s.latitude, s.longitude
       from stops s join cities c on c.id = s.city_id
       where lower(c.name_en) = any($1::text[]) and s.company_id is null and s.kind <> 'DEPOT'`,
      [cityNames],
    );
    const perCity = groupBy(stops, (stop) => stop.city);
    expect(perCity.size).toBe(CITIES.length);
    for (const cityStops of perCity.values()) {
      expect(cityStops.length).toBeGreaterThanOrEqual(2);
      expect(cityStops.length).toBeLessThanOrEqual(4);
    }
    for (const stop of stops) {
      for (const text of [stop.name_en, stop.address_en, stop.directions_en]) expect(text).not.toBe('');
      for (const text of [stop.name_ar, stop.address_ar, stop.directions_ar])
        expect(text).toMatch(/[\u0600-\u06FF]/);
      expect(distanceKm({ latitude: stop.city_latitude, longitude: stop.city_longitude }, stop)).toBeLessThan(
        30,
      );
    }
    const damascus = perCity.get('Damascus')!.map((stop) => stop.name_ar);
    expect(damascus).toEqual(
      expect.arrayContaining(['كراجات السومرية', 'كراجات القابون', 'مطار دمشق الدولي']),
    );
  });

  it('keeps a depot for every production company in its home city, which is not offered as a pickup', async () => {
    const production = DEMO_COMPANIES.filter(
      (company) => company.scope === 'PRODUCTION' && company.status === 'ACTIVE' && company.published,
    );
    const depots = await db.query<{ company_id: string; pickups: number }>(
      `select s.company_id, (select count(*)::int from pickup_locations p where p.stop_id = s.id) as pickups
       from stops s where s.kind = 'DEPOT' and s.company_id = any($1::uuid[])`,
      [production.map((company) => company.id)],
    );
    expect(new Set(depots.map((depot) => depot.company_id))).toEqual(
      new Set(production.map((company) => company.id)),
    );
    expect(depots.every((depot) => depot.pickups === 0)).toBe(true);
  });

  it('has four production companies, an internal QA, a demo, a suspended and an unpublished company', async () => {
    const rows = await db.query<{
      id: string;
      status: 'ACTIVE' | 'SUSPENDED';
      published: boolean;
      verified: boolean;
      is_internal: boolean;
      is_demo: boolean;
    }>(
      'select id, status, published, verified, is_internal, is_demo from companies where id = any($1::uuid[])',
      [companyIds],
    );
    const companies = rows.map((row) => ({ ...row, isInternal: row.is_internal, isDemo: row.is_demo }));
    const visibleTo = (scope: Parameters<typeof companyInScope>[0]) =>
      companies.filter((company) => companyInScope(scope, company)).map((company) => company.id);

    const production = visibleTo({ kind: 'PRODUCTION' });
    expect(production).toHaveLength(4);
    expect(
      companies.filter((company) => production.includes(company.id)).every((company) => company.verified),
    ).toBe(true);
    expect(visibleTo({ kind: 'INTERNAL' })).toEqual([demoCompany('qa').id]);
    expect(companies.find((company) => company.is_internal)).toMatchObject({
      status: 'ACTIVE',
      published: false,
    });
    expect(visibleTo({ kind: 'DEMO', companyId: DEMO_COMPANY_ID })).toEqual([DEMO_COMPANY_ID]);
    expect(companies.filter((company) => company.status === 'SUSPENDED')).toEqual([
      expect.objectContaining({
        id: demoCompany('furat').id,
        published: true,
        verified: true,
        is_internal: false,
        is_demo: false,
      }),
    ]);
    const unpublished = companies.filter(
      (company) =>
        company.status === 'ACTIVE' && !company.published && !company.is_internal && !company.is_demo,
    );
    expect(unpublished.map((company) => company.id)).toEqual([demoCompany('orontes').id]);
  });

  it('gives every company 3 to 6 buses, each with one active valid layout, among them two-deck, 2+1 VIP and lettered ones', async () => {
    const buses = await db.query<{ company_id: string; bus_id: string; active_layouts: number }>(
      `select b.company_id, b.id as bus_id,
              (select count(*)::int from bus_layouts l where l.bus_id = b.id and l.status = 'active' and l.validation_status = 'valid') as active_layouts
       from buses b where b.company_id = any($1::uuid[])`,
      [companyIds],
    );
    for (const fleet of groupBy(buses, (bus) => bus.company_id).values()) {
      expect(fleet.length).toBeGreaterThanOrEqual(3);
      expect(fleet.length).toBeLessThanOrEqual(6);
    }
    expect(buses.every((bus) => bus.active_layouts === 1)).toBe(true);

    const layouts = await db.query<{
      decks: number;
      columns: number;
      seats: number;
      vip_seats: number;
      lettered_seats: number;
    }>(
      `select (l.document->'grid'->>'decks')::int as decks, (l.document->'grid'->>'columns')::int as columns,
              count(s.*)::int as seats, count(s.*) filter (where s.seat_class = 'VIP')::int as vip_seats,
              count(s.*) filter (where s.seat_number ~ '^[A-Z][0-9]+$')::int as lettered_seats
       from bus_layouts l join buses b on b.id = l.bus_id join layout_seats s on s.layout_id = l.id
       where b.company_id = any($1::uuid[]) and l.status = 'active' and l.validation_status = 'valid'
       group by l.id`,
      [companyIds],
    );
    expect(layouts.some((layout) => layout.decks === 2)).toBe(true);
    // 2+1: two seats, the aisle and one seat per row, all VIP.
    expect(layouts.some((layout) => layout.columns === 4 && layout.vip_seats === layout.seats)).toBe(true);
    expect(layouts.some((layout) => layout.lettered_seats === layout.seats)).toBe(true);
  });

  it('runs trips with intermediate stop calls on each of the next 30 Damascus dates, for every company that operates', async () => {
    const dates = await db.query<{
      operating_date: string;
      companies: number;
      trips: number;
      fewest_calls: number;
      dwelling: number;
    }>(
      `select t.operating_date::text, count(distinct t.company_id)::int as companies, count(*)::int as trips,
              min(calls.count)::int as fewest_calls, count(*) filter (where calls.dwells > 0)::int as dwelling
       from trips t
       cross join lateral (select count(*) as count,
                                  count(*) filter (where sc.departure_at > sc.arrival_at) as dwells
                           from trip_stop_calls sc where sc.trip_id = t.id) calls
       where t.company_id = any($1::uuid[]) and t.operating_date between $2::date and $2::date + 29
       group by t.operating_date order by t.operating_date`,
      [companyIds, first.dates.first],
    );
    expect(dates).toHaveLength(30);
    for (const date of dates) {
      expect(date.companies).toBe(DEMO_COMPANIES.length);
      expect(date.fewest_calls).toBeGreaterThanOrEqual(3);
      expect(date.dwelling).toBe(date.trips);
    }
  });

  it('leaves Daraa–Latakia without a direct trip but with a one-change connection through Damascus', async () => {
    const production = DEMO_COMPANIES.filter(
      (company) => company.scope === 'PRODUCTION' && company.status === 'ACTIVE' && company.published,
    );
    const ids = production.map((company) => company.id);
    const [direct] = await db.query<{ trips: number }>(
      `select count(*)::int as trips from trips t
       join trip_stop_calls b on b.trip_id = t.id join cities bc on bc.id = b.city_id and bc.name_en = $2
       join trip_stop_calls a on a.trip_id = t.id and a.sequence > b.sequence join cities ac on ac.id = a.city_id and ac.name_en = $3
       where t.company_id = any($1::uuid[])`,
      [ids, 'Daraa', 'Latakia'],
    );
    expect(direct!.trips).toBe(0);
    const [connection] = await db.query<{ connections: number }>(
      `select count(*)::int as connections
       from trips t1
       join trip_stop_calls b1 on b1.trip_id = t1.id join cities c1 on c1.id = b1.city_id and c1.name_en = $3
       join trip_stop_calls a1 on a1.trip_id = t1.id and a1.sequence > b1.sequence
       join cities m on m.id = a1.city_id and m.name_en = $5
       join trip_stop_calls b2 on b2.city_id = a1.city_id
         and b2.departure_at between a1.arrival_at + interval '60 minutes' and a1.arrival_at + interval '6 hours'
       join trips t2 on t2.id = b2.trip_id and t2.company_id = any($1::uuid[])
       join trip_stop_calls a2 on a2.trip_id = t2.id and a2.sequence > b2.sequence
       join cities c2 on c2.id = a2.city_id and c2.name_en = $4
       where t1.company_id = any($1::uuid[]) and t1.operating_date = $2::date + 1`,
      [ids, first.dates.first, 'Daraa', 'Latakia', 'Damascus'],
    );
    expect(connection!.connections).toBeGreaterThan(0);
  });

  it('describes the demo identities: reserved travellers per scope and the seeded companies', async () => {
    const accounts = await readDemoAccounts(db);
    expect(accounts.travellers).toEqual([
      { phone: '+963900000001', scope: 'PRODUCTION' },
      { phone: '+963900000002', scope: 'INTERNAL' },
      { phone: '+963900000003', scope: 'DEMO', companyId: DEMO_COMPANY_ID },
    ]);
    expect(accounts.companies.map((company) => company.id)).toEqual(companyIds);
    expect(accounts.companies.find((company) => company.id === DEMO_COMPANY_ID)?.scope).toBe('DEMO');
    const manual = accounts.companies.filter((company) => company.confirmationMode === 'MANUAL_CONFIRM');
    expect(manual).toEqual([
      expect.objectContaining({ scope: 'PRODUCTION', status: 'ACTIVE', published: true }),
    ]);
    // Every company has an OWNER and two planning drivers; every active, published production company has the
    // whole team and the driver-app account README names (driver@<slug>.demo).
    expect(
      new Set(accounts.staff.filter((member) => member.role === 'OWNER').map((member) => member.companyId)),
    ).toEqual(new Set(companyIds));
    for (const company of DEMO_COMPANIES) {
      const roles = accounts.staff
        .filter((member) => member.companyId === company.id)
        .map((member) => member.role);
      const fullTeam = company.scope === 'PRODUCTION' && company.status === 'ACTIVE' && company.published;
      expect(roles.sort()).toEqual(
        fullTeam
          ? ['ACCOUNTANT', 'ADMIN', 'DISPATCHER', 'DRIVER', 'DRIVER', 'DRIVER', 'OWNER', 'STAFF']
          : ['DRIVER', 'DRIVER', 'OWNER'],
      );
      const driverApp = accounts.staff.some((member) => member.email === `driver@${company.slug}.demo`);
      expect([company.slug, driverApp]).toEqual([company.slug, fullTeam]);
    }
    const [owner] = accounts.staff;
    const [stored] = await db.query<{ password_hash: string }>(
      'select password_hash from staff_users where lower(email) = $1',
      [owner!.email],
    );
    expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verify(stored!.password_hash, owner!.password)).toBe(true);
    expect(accounts.admins).toEqual([
      {
        email: 'superadmin@busbooking.demo',
        password: DEMO_ADMIN_PASSWORD,
        role: 'SUPER_ADMIN',
        totpSecret: null,
      },
      { email: 'support@busbooking.demo', password: DEMO_ADMIN_PASSWORD, role: 'SUPPORT', totpSecret: null },
      {
        email: 'secure-admin@busbooking.demo',
        password: DEMO_ADMIN_PASSWORD,
        role: 'ADMIN',
        totpSecret: DEMO_ADMIN_TOTP_SECRET,
      },
    ]);
  });

  it('gives the administration console a first look after two runs: a warned company, incidents, a past maintenance window, waitlist sign-ups and tickets, once each', async () => {
    const [counts] = await db.query(
      `select
         (select count(*)::int from company_admin_actions where company_id = $1 and action = 'WARN') as zeinobia_warnings,
         (select count(*)::int from company_admin_actions where company_id = $2 and action = 'SUSPEND') as furat_suspensions,
         (select count(*)::int from incidents where status <> 'RESOLVED') as open_incidents,
         (select count(*)::int from incidents where status = 'RESOLVED') as resolved_incidents,
         (select count(*)::int from maintenance_windows where ends_at < now() and cancelled_at is null) as past_windows,
         (select count(*)::int from maintenance_windows where ends_at > now() and cancelled_at is null) as coming_windows,
         (select count(*)::int from waitlist_entries) as waitlist,
         (select array_agg(status order by status) from support_tickets) as tickets,
         (select count(*)::int from support_ticket_messages) as messages`,
      [demoCompany('zeinobia').id, demoCompany('furat').id],
    );
    expect(counts).toEqual({
      zeinobia_warnings: 1,
      furat_suspensions: 1,
      open_incidents: 1,
      resolved_incidents: 1,
      past_windows: 1,
      coming_windows: 0,
      waitlist: 4,
      tickets: ['ANSWERED', 'CLOSED', 'OPEN'],
      messages: 5,
    });
  });

  it('gives every demo route its stops, every company two drivers and every active company a committed schedule', async () => {
    const routes = await db.query<{ id: string; stops: number }>(
      `select r.id, (select count(*)::int from route_stops rs where rs.route_id = r.id) as stops
       from routes r where r.company_id = any($1::uuid[])`,
      [companyIds],
    );
    expect(routes.every((route) => route.stops >= 2)).toBe(true);
    const schedules = await db.query<{
      company_id: string;
      status: string;
      trips_created: number;
      trips: number;
      calls: number;
    }>(
      `select s.company_id, s.status, s.trips_created,
              (select count(*)::int from trips t where t.schedule_id = s.id) as trips,
              (select count(*)::int from trips t join trip_stop_calls c on c.trip_id = t.id where t.schedule_id = s.id) as calls
       from trip_schedules s where s.company_id = any($1::uuid[])`,
      [companyIds],
    );
    const active = DEMO_COMPANIES.filter((company) => company.status === 'ACTIVE');
    expect(new Set(schedules.map((schedule) => schedule.company_id))).toEqual(
      new Set(active.map((company) => company.id)),
    );
    for (const schedule of schedules) {
      expect(schedule).toMatchObject({ status: 'COMPLETED', trips: schedule.trips_created });
      expect(schedule.trips).toBeGreaterThanOrEqual(30);
      expect(schedule.calls).toBeGreaterThanOrEqual(schedule.trips * 2);
    }
    const drivers = await db.query<{ company_id: string; count: number }>(
      `select company_id, count(*)::int as count from company_memberships
       where role = 'DRIVER' and active and company_id = any($1::uuid[])
         and staff_user_id in (select id from staff_users where email ~ '^driver[0-9]+@')
       group by company_id`,
      [companyIds],
    );
    expect(drivers).toHaveLength(DEMO_COMPANIES.length);
    expect(drivers.every((row) => row.count === 2)).toBe(true);
  });

  it('gives the first two production companies payments in every status, a closed shift with a difference and an open one', async () => {
    for (const key of ['qadmous', 'ahliah']) {
      const companyId = demoCompany(key).id;
      const statuses = await db.query<{ status: string }>(
        `select distinct status from payment_operations where company_id = $1 order by status`,
        [companyId],
      );
      expect(statuses.map((row) => row.status)).toEqual([
        'CANCELLED',
        'COMPLETED',
        'FAILED',
        'PENDING',
        'REFUNDED',
        'REFUND_DUE',
      ]);
      const shifts = await db.query<{ status: string; difference: number | null; expected: number | null }>(
        `select status, difference::int, expected_amount::int as expected from cash_shifts where company_id = $1
          order by opened_at`,
        [companyId],
      );
      expect(shifts.map((shift) => [shift.status, shift.difference])).toEqual([
        ['CLOSED', -1500],
        ['OPEN', null],
      ]);
      // opening 50,000 + a driver collection and a refunded office collection + 10,000 in − the refund
      const [fare] = await db.query<{ amount: number }>(
        `select amount::int from payment_operations where company_id = $1 and source = 'driver'`,
        [companyId],
      );
      expect(shifts[0]!.expected).toBe(50_000 + 2 * fare!.amount + 10_000 - fare!.amount);
    }
  });

  it('prints the demo identities as JSON and nothing else', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo-accounts.ts'], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: seedDatabaseUrl, LOG_LEVEL: 'info' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout) as Awaited<ReturnType<typeof readDemoAccounts>>;
    expect(Object.keys(document)).toEqual(['travellers', 'companies', 'staff', 'admins']);
    expect(document.companies).toHaveLength(DEMO_COMPANIES.length);
  });
});
