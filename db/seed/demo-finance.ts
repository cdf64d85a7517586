import type { PoolClient } from 'pg';
import type { PaymentSource, PaymentStatus } from '../../domain/payment-ledger.js';
import { demoCompany, demoUuid, type DemoCompanyIdentity } from './demo-identities.js';

/**
 * Finance demo data, so the ledger, receipts and cash shifts have something to show on first
 * start: for Al-Qadmous and Al-Ahliah, eight office bookings (one seat each on one of the
 * company's trips a day or more ahead) whose payments cover every status and source, a closed
 * shift with a difference (it holds a driver collection, a cash refund and an adjustment) and an
 * open shift (an office collection). The open shift's workflow starts on its first ADJUST or CLOSE.
 * Idempotent: stable ids and "on conflict do nothing".
 */
interface DemoPayment {
  key: string;
  source: PaymentSource;
  status: PaymentStatus;
  /** bookings.payment_status that goes with it. */
  fact: 'UNPAID' | 'PAID' | 'REFUNDED';
  bookingStatus?: 'CONFIRMED' | 'CANCELLED';
  shift?: 'closed' | 'open';
  note?: string;
  refundDueReason?: string;
  /** Hours before now the record was made. */
  hoursAgo: number;
}

const PAYMENTS: DemoPayment[] = [
  { key: 'pending', source: 'transaction', status: 'PENDING', fact: 'UNPAID', hoursAgo: 3 },
  { key: 'driver', source: 'driver', status: 'COMPLETED', fact: 'PAID', shift: 'closed', hoursAgo: 40 },
  { key: 'office', source: 'office', status: 'COMPLETED', fact: 'PAID', shift: 'open', hoursAgo: 2 },
  { key: 'refunded', source: 'office', status: 'REFUNDED', fact: 'REFUNDED', shift: 'closed', hoursAgo: 44 },
  {
    key: 'cancelled',
    source: 'transaction',
    status: 'CANCELLED',
    fact: 'UNPAID',
    note: 'Traveller changed plans',
    hoursAgo: 30,
  },
  {
    key: 'refund-due',
    source: 'transaction',
    status: 'REFUND_DUE',
    fact: 'PAID',
    bookingStatus: 'CANCELLED',
    refundDueReason: 'The company cancelled the trip',
    hoursAgo: 26,
  },
  {
    key: 'failed',
    source: 'transaction',
    status: 'FAILED',
    fact: 'UNPAID',
    note: 'Recorded as failed',
    hoursAgo: 20,
  },
  { key: 'fact', source: 'booking', status: 'COMPLETED', fact: 'PAID', hoursAgo: 10 },
];

const COMPANIES = ['qadmous', 'ahliah'];

interface TripSeats {
  trip_id: string;
  price: number;
  board: number;
  alight: number;
  seats: { seat_id: string; seat_number: string }[];
}

/** A trip of the company at least a day ahead, with its last free seats. */
async function tripWithSeats(client: PoolClient, companyId: string): Promise<TripSeats | undefined> {
  const { rows } = await client.query<TripSeats>(
    `select t.id as trip_id, t.price_base::float8 as price,
            (select min(sequence) from trip_stop_calls where trip_id = t.id) as board,
            (select max(sequence) from trip_stop_calls where trip_id = t.id) as alight,
            (select json_agg(s order by s.seat_id desc) from (
               select ls.seat_id, ls.seat_number from layout_seats ls
                 join bus_layouts l on l.id = ls.layout_id and l.bus_id = t.bus_id and l.status = 'active'
                where not exists (select 1 from seat_allocations a where a.trip_id = t.id and a.seat_id = ls.seat_id
                                    and a.status in ('HELD', 'CONFIRMED'))
                order by ls.seat_id desc limit $2) s) as seats
       from trips t
      where t.company_id = $1 and t.status = 'SCHEDULED' and t.departure_at > now() + interval '1 day'
      order by t.departure_at, t.id limit 1`,
    [companyId, PAYMENTS.length],
  );
  return rows[0];
}

async function staffId(client: PoolClient, email: string): Promise<string> {
  const { rows } = await client.query<{ id: string }>(`select id from staff_users where lower(email) = $1`, [
    email,
  ]);
  return rows[0]!.id;
}

export async function seedDemoFinance(client: PoolClient): Promise<void> {
  for (const key of COMPANIES) await seedCompanyFinance(client, demoCompany(key));
}

async function seedCompanyFinance(client: PoolClient, company: DemoCompanyIdentity): Promise<void> {
  const shiftIds = {
    closed: demoUuid('finance', company.id, 'shift-closed'),
    open: demoUuid('finance', company.id, 'shift-open'),
  };
  const { rows: seeded } = await client.query(`select 1 from cash_shifts where id = $1`, [shiftIds.closed]);
  if (seeded[0]) return;
  const trip = await tripWithSeats(client, company.id);
  if (!trip || trip.seats.length < PAYMENTS.length) return;
  const owner = await staffId(client, `owner@${company.slug}.demo`);
  const accountant = await staffId(client, `accountant@${company.slug}.demo`);
  await insertShifts(client, company.id, shiftIds, owner);
  for (const [index, payment] of PAYMENTS.entries()) {
    await insertBookingAndPayment(client, { company, trip, payment, index, shiftIds, decidedBy: accountant });
  }
  await closeDemoShift(client, shiftIds.closed, owner);
}

async function insertShifts(
  client: PoolClient,
  companyId: string,
  ids: { closed: string; open: string },
  owner: string,
): Promise<void> {
  await client.query(
    // The morning shift is written closed (its figures are set once its money is in: closeDemoShift).
    `insert into cash_shifts (id, company_id, status, opening_balance, opened_by, opened_at, note, declared_amount,
                              expected_amount, difference, closed_by, closed_at)
     values ($1, $3, 'CLOSED', 50000, $4, now() - interval '48 hours', 'Morning shift (demo)', 0, 0, 0, $4,
             now() - interval '30 hours'),
            ($2, $3, 'OPEN', 20000, $4, now() - interval '3 hours', 'Today (demo)', null, null, null, null, null)
     on conflict do nothing`,
    [ids.closed, ids.open, companyId, owner],
  );
}

async function insertBookingAndPayment(
  client: PoolClient,
  input: {
    company: DemoCompanyIdentity;
    trip: TripSeats;
    payment: DemoPayment;
    index: number;
    shiftIds: { closed: string; open: string };
    decidedBy: string;
  },
): Promise<void> {
  const { company, trip, payment, index } = input;
  const bookingId = demoUuid('finance', company.id, 'booking', payment.key);
  const seat = trip.seats[index]!;
  const at = `now() - interval '${payment.hoursAgo} hours'`;
  await client.query(
    `insert into bookings (id, booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count, seat_numbers,
                           status, payment_status, total_price, channel, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, 1, array[$7], $8, $9, $10, 'RESELLER', ${at}, ${at})
     on conflict do nothing`,
    [
      bookingId,
      `FN${company.key.slice(0, 2).toUpperCase()}${String(index + 1).padStart(4, '0')}`,
      company.id,
      trip.trip_id,
      [
        'Rami Haddad',
        'Lina Saleh',
        'Omar Khoury',
        'Hala Nasser',
        'Yousef Darwish',
        'Maya Azar',
        'Karim Issa',
        'Nour Halabi',
      ][index],
      `+9639440000${String(index + 10)}`,
      seat.seat_number,
      payment.bookingStatus ?? 'CONFIRMED',
      payment.fact,
      trip.price,
    ],
  );
  if ((payment.bookingStatus ?? 'CONFIRMED') === 'CONFIRMED') {
    await client.query(
      `insert into seat_allocations (id, trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind, owner_id)
       values ($1, $2, $3, $4, $5, 'CONFIRMED', 'BOOKING', $6) on conflict do nothing`,
      [
        demoUuid('finance', bookingId, 'seat'),
        trip.trip_id,
        seat.seat_id,
        trip.board,
        trip.alight,
        bookingId,
      ],
    );
  }
  await insertPayment(client, { ...input, bookingId });
}

async function insertPayment(
  client: PoolClient,
  input: {
    company: DemoCompanyIdentity;
    trip: TripSeats;
    payment: DemoPayment;
    bookingId: string;
    shiftIds: { closed: string; open: string };
    decidedBy: string;
  },
): Promise<void> {
  const { payment } = input;
  const collected = ['COMPLETED', 'REFUND_DUE', 'REFUNDED'].includes(payment.status);
  const at = `now() - interval '${payment.hoursAgo} hours'`;
  const paymentId = demoUuid('finance', input.bookingId, 'payment');
  await client.query(
    `insert into payment_operations (id, company_id, booking_id, method, provider, source, amount, status, note,
                                     refund_due_reason, collected_at, refunded_at, decided_by, decided_at, refunded_by,
                                     cancelled_at, cancelled_by, cash_shift_id, created_at, updated_at)
     values ($1, $2, $3, 'CASH', 'cash', $4, $5, $6, $7, $8,
             case when $9 then ${at} + interval '30 minutes' end,
             case when $6 = 'REFUNDED' then ${at} + interval '5 hours' end,
             case when $9 and $4 <> 'booking' then $10::uuid end, case when $9 and $4 <> 'booking' then ${at} + interval '30 minutes' end,
             case when $6 = 'REFUNDED' then $10::uuid end,
             case when $6 = 'CANCELLED' then ${at} + interval '2 hours' end, case when $6 = 'CANCELLED' then $10::uuid end,
             $11, ${at}, ${at})
     on conflict do nothing`,
    [
      paymentId,
      input.company.id,
      input.bookingId,
      payment.source,
      input.trip.price,
      payment.status,
      payment.note ?? null,
      payment.refundDueReason ?? null,
      collected,
      input.decidedBy,
      payment.shift ? input.shiftIds[payment.shift] : null,
    ],
  );
  if (payment.status === 'REFUNDED') {
    await client.query(
      `insert into cash_shift_movements (id, shift_id, company_id, kind, direction, amount, reason, payment_id, recorded_by,
                                         recorded_at)
       values ($1, $2, $3, 'REFUND', 'OUT', $4, 'Refund of a cancelled booking (demo)', $5, $6, ${at} + interval '5 hours')
       on conflict do nothing`,
      [
        demoUuid('finance', paymentId, 'refund'),
        input.shiftIds.closed,
        input.company.id,
        input.trip.price,
        paymentId,
        input.decidedBy,
      ],
    );
  }
}

/** The morning shift: a float put in, then closed 1,500 SYP short. */
async function closeDemoShift(client: PoolClient, shiftId: string, owner: string): Promise<void> {
  await client.query(
    `insert into cash_shift_movements (id, shift_id, company_id, direction, amount, reason, recorded_by, recorded_at)
     select $1, id, company_id, 'IN', 10000, 'Change float from the safe', $3, opened_at + interval '10 minutes'
       from cash_shifts where id = $2
     on conflict do nothing`,
    [demoUuid('finance', shiftId, 'float'), shiftId, owner],
  );
  await client.query(
    `update cash_shifts s set closed_by = $2, expected_amount = e.expected, declared_amount = e.expected - 1500, difference = -1500,
            note = 'Closed 1,500 SYP short (demo)'
       from (select s2.opening_balance
                    + coalesce((select sum(amount) from payment_operations where cash_shift_id = s2.id
                                  and status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')), 0)
                    + coalesce((select sum(case direction when 'IN' then amount else -amount end)
                                  from cash_shift_movements where shift_id = s2.id), 0) as expected
               from cash_shifts s2 where s2.id = $1) e
      where s.id = $1`,
    [shiftId, owner],
  );
}
