import type { Fail } from './invariants-seats.js';
import type { Reader } from './snapshot.js';
import { companyIds, type World } from './world.js';

/**
 * Invariants of journeys of more than one booking (connections) and orders of more than one journey
 * (round trips), as the README promises them (SPEC "Journey confirmation", README "Bookings"):
 * - one booking of either is ended on its own only by its company: a refund (payment REFUNDED) or a
 *   cancelled trip; a traveller's cancel ends every booking of it not settled by travel or none (a
 *   partner that travelled or whose bus has left stays), a rejected or expired request ends the
 *   whole journey, so no other booking stays standing beside such an ending;
 * - a round trip is all or nothing: its order holds two journeys, each with its booking;
 * - an order is CANCELLED once none of its journeys is left, and never while one stands.
 */
const STANDING = `('CONFIRMED', 'PENDING_CONFIRMATION', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW')`;
const ENDED_SCOPE = `('CANCELLED', 'RELEASED', 'EXPIRED')`;
const TRAVELLED = `('CHECKED_IN', 'COMPLETED', 'NO_SHOW')`;
const AHEAD = `('SCHEDULED', 'BOARDING', 'DELAYED')`;

/**
 * A booking ended beside a partner still standing must have ended by a refund or its trip's cancel,
 * or by a traveller's cancel once the partner had travelled or its bus had left (both only move on).
 */
export async function partnersEndTogether(read: Reader, world: World, fail: Fail): Promise<void> {
  const alone = await read.query<{ link: string }>(
    `select b.id, b.status, b.payment_status, t.status as trip_status, o.id as partner_id, o.status as partner_status,
            case when o.journey_id = b.journey_id then 'connection' else 'round trip' end as link
       from bookings b join trips t on t.id = b.trip_id join journeys j on j.id = b.journey_id
       join bookings o on o.id <> b.id and (o.journey_id = b.journey_id
         or o.journey_id in (select k.id from journeys k where k.order_id = j.order_id))
       join trips ot on ot.id = o.trip_id
      where b.company_id = any($1) and b.status in ('CANCELLED', 'EXPIRED') and o.status in ${STANDING}
        and not (b.status = 'CANCELLED' and (b.payment_status = 'REFUNDED' or t.status = 'CANCELLED'))
        and not (b.status = 'CANCELLED' and (o.status in ${TRAVELLED} or ot.status not in ${AHEAD}
          or ot.departure_at + make_interval(mins => ot.delay_minutes) <= now()))`,
    [companyIds(world)],
  );
  for (const row of alone) fail(`one booking of a ${row.link} ended alone: ${JSON.stringify(row)}`);
}

/** Every order of the drill's bookings (round trips) holds two journeys, each with a booking. */
export async function roundTripsWhole(read: Reader, world: World, fail: Fail): Promise<void> {
  const broken = await read.query(
    `select r.id, r.status, count(distinct j.id)::int as journeys, count(b.id)::int as bookings,
            array_agg(j.status) as journey_statuses
       from journey_orders r join journeys j on j.order_id = r.id left join bookings b on b.journey_id = j.id
      where r.id in (select j2.order_id from journeys j2 join bookings b2 on b2.journey_id = j2.id
                      where b2.company_id = any($1))
      group by r.id, r.status
     having count(distinct j.id) <> 2 or count(b.id) < 2 or bool_or(b.id is null)`,
    [companyIds(world)],
  );
  for (const row of broken) fail(`round trip not whole: ${JSON.stringify(row)}`);
}

/** An order ends once none of its journeys is left, and not before. */
export async function ordersAgree(read: Reader, world: World, fail: Fail): Promise<void> {
  const rows = await read.query<{ id: string; status: string; standing: number; journeys: string[] }>(
    `select r.id, r.status, count(*) filter (where j.status not in ${ENDED_SCOPE})::int as standing,
            array_agg(j.status) as journeys
       from journey_orders r join journeys j on j.order_id = r.id
      where r.id in (select j2.order_id from journeys j2 join bookings b2 on b2.journey_id = j2.id
                      where b2.company_id = any($1))
      group by r.id, r.status`,
    [companyIds(world)],
  );
  for (const row of rows) {
    const ended = ['CANCELLED', 'RELEASED', 'EXPIRED'].includes(row.status);
    if (ended && row.standing > 0) fail(`ended order with a journey standing: ${JSON.stringify(row)}`);
    if (!ended && row.standing === 0)
      fail(`order ${row.status} with every journey ended: ${JSON.stringify(row)}`);
  }
}

/** A CONFIRMED connection has every leg's booking CONFIRMED or later, or ended on its own as above. */
export async function confirmedLegsStand(read: Reader, world: World, fail: Fail): Promise<void> {
  const rows = await read.query(
    `select j.id, array_agg(b.status order by b.id) as bookings from journeys j join bookings b on b.journey_id = j.id
      where j.status = 'CONFIRMED' and b.company_id = any($1)
      group by j.id having count(*) > 1 and bool_or(b.status in ('PENDING_CONFIRMATION', 'EXPIRED'))`,
    [companyIds(world)],
  );
  for (const row of rows) fail(`CONFIRMED connection with a leg not confirmed: ${JSON.stringify(row)}`);
}
