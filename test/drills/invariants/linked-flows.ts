import { dispatchTrip, paymentAction } from './company-flows.js';
import { confirmJourney, issuedVoucher, lockSeats, quoteAndHold } from './customer-flows.js';
import { bookableConnections, bookableReturns } from './linked-trips.js';
import {
  callerOf,
  companyIds,
  companyOf,
  isDirect,
  pickRow,
  pickTrip,
  randomSeats,
  travellerWrite,
  type World,
} from './world.js';

/**
 * Flows over more than one booking: a connection of two legs quoted, held and confirmed through
 * /journeys (a MANUAL leg waits for its company's decision, which `decide` takes), a round trip booked
 * with two seat locks, a traveller's cancel of one booking of either (which ends the whole of it), and a
 * company's refund of one leg (which ends that leg alone).
 */

/** Bookings of a journey of two legs or of an order of two journeys: joined to their partner. */
const LINKED = `(exists (select 1 from bookings o where o.journey_id = b.journey_id and o.id <> b.id)
  or exists (select 1 from journeys j join journeys k on k.order_id = j.order_id and k.id <> j.id where j.id = b.journey_id))`;

export async function connectionJourney(world: World): Promise<void> {
  const { dice, answers } = world;
  const pair = dice.pick(await bookableConnections(world));
  if (!pair) return;
  const caller = dice.pick(world.travellers)!;
  const party = dice.int(1, 2);
  const legs = [pair.first.trip, pair.second.trip];
  const labels: [string, string] = ['quote-connection', 'hold-connection'];
  const held = await quoteAndHold(world, caller, legs, party, labels);
  if (!held) return;
  const manual = pair.first.company.manual || pair.second.company.manual;
  answers.record(
    manual ? 'confirm-connection-manual' : 'confirm-connection-auto',
    await confirmJourney(world, caller, held),
  );
}

/** Two seat locks (out on a direct AUTO trip, back on a return trip) and POST /api/bookings/round-trip. */
export async function roundTrip(world: World): Promise<void> {
  const { dice, answers } = world;
  const back = dice.pick(await bookableReturns(world));
  if (!back) return;
  const { trip: out } = await pickTrip(world, world.auto, undefined, (trip) => isDirect(world, trip));
  const caller = dice.pick(world.travellers)!;
  const count = dice.int(1, 2);
  const outLock = answers.record(
    'seat-lock-out',
    await lockSeats(world, caller, out.tripId, randomSeats(world, count)),
  );
  if (outLock.status !== 201) return;
  const backLock = answers.record(
    'seat-lock-back',
    await lockSeats(world, caller, back.tripId, randomSeats(world, count)),
  );
  if (backLock.status !== 201) return;
  const voucher = dice.chance(0.5) ? await issuedVoucher(world, caller.userId) : undefined;
  answers.record(
    voucher ? 'round-trip+voucher' : 'round-trip',
    await travellerWrite(world, caller, '/api/bookings/round-trip', {
      outbound_seat_lock_session_id: outLock.body.data.seat_lock_session_id,
      return_seat_lock_session_id: backLock.body.data.seat_lock_session_id,
      passenger_name: 'Round Traveller',
      passenger_phone: '+963944123456',
      ...(voucher ? { reward_code: voucher } : {}),
    }),
  );
}

/** The traveller cancels one booking of a connection or round trip: every booking of it ends, or none. */
export async function cancelLinked(world: World): Promise<void> {
  const booking = await pickRow<{ id: string; owner_user_id: string }>(
    world,
    `select b.id, b.owner_user_id from bookings b where b.company_id = any($1)
        and b.status in ('CONFIRMED', 'PENDING_CONFIRMATION') and ${LINKED} order by b.created_at`,
    [companyIds(world)],
  );
  if (!booking) return;
  world.answers.record(
    'cancel-linked',
    await travellerWrite(world, callerOf(world, booking.owner_user_id), `/api/bookings/${booking.id}/cancel`),
  );
}

/** The company refunds the paid line of one booking of a connection or round trip. */
export async function refundLeg(world: World): Promise<void> {
  const payment = await pickRow<{ id: string; company_id: string }>(
    world,
    `select p.id, p.company_id from payment_operations p join bookings b on b.id = p.booking_id
      where p.company_id = any($1) and p.status in ('COMPLETED', 'REFUND_DUE') and ${LINKED} order by p.created_at`,
    [companyIds(world)],
  );
  if (!payment) return;
  world.answers.record(
    'refund-leg',
    await paymentAction(world, companyOf(world, payment.company_id), payment.id, 'refund'),
  );
}

/**
 * Two bookings of one connection or round trip acted on at once: the traveller cancels both, or
 * cancels one while the company cancels the other's trip (rarely), or the company refunds both.
 */
export async function raceOnLinked(world: World): Promise<void> {
  const { dice, answers } = world;
  const pair = await pickRow<{ a: string; b: string; owner: string; b_trip: string; b_company: string }>(
    world,
    `select b.id as a, o.id as b, b.owner_user_id as owner, o.trip_id as b_trip, o.company_id as b_company
       from bookings b join journeys j on j.id = b.journey_id
       join bookings o on o.id > b.id and (o.journey_id = b.journey_id
         or o.journey_id in (select k.id from journeys k where k.order_id = j.order_id))
      where b.company_id = any($1) and b.status = 'CONFIRMED' and o.status = 'CONFIRMED' order by b.created_at`,
    [companyIds(world)],
  );
  if (!pair) return;
  const caller = callerOf(world, pair.owner);
  const cancel = (id: string) => () => travellerWrite(world, caller, `/api/bookings/${id}/cancel`);
  const payments = await world.app.db.query<{ id: string; company_id: string }>(
    `select id, company_id from payment_operations where booking_id = any($1) and status = 'COMPLETED'`,
    [[pair.a, pair.b]],
  );
  const kind = dice.pick(['cancel+cancel', 'cancel+trip-cancel', 'refund+refund'] as const)!;
  const requests =
    kind === 'cancel+cancel'
      ? [cancel(pair.a), cancel(pair.b)]
      : kind === 'cancel+trip-cancel'
        ? dice.chance(0.3)
          ? [
              cancel(pair.a),
              () =>
                dispatchTrip(world, companyOf(world, pair.b_company), pair.b_trip, {
                  action: 'CANCEL',
                  reason: 'Breakdown',
                }),
            ]
          : []
        : payments.length === 2
          ? payments.map(
              (line) => () => paymentAction(world, companyOf(world, line.company_id), line.id, 'refund'),
            )
          : [];
  const answered = await Promise.all(requests.map((request) => request()));
  answered.forEach((response, index) => answers.record(`race-linked ${kind}#${index}`, response));
}
