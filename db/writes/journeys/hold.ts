import type { PoolClient } from 'pg';
import {
  holdRefusal,
  unusableHoldRefusal,
  type ConfirmationScope,
  type HoldBatchStatus,
} from '../../../domain/journey-confirmation.js';
import type { TransferSettings } from '../../../domain/journey-search.js';
import { chooseSeats, type LegSeat, type QuotedResource } from '../../../domain/journey-seats.js';
import type { Database } from '../../orm.js';
import { PG_EXCLUSION_VIOLATION, PG_UNIQUE_VIOLATION, pgCode, withDeadlockRetry } from '../../pg-errors.js';
import { isBookableStatus } from '../../queries/inventory.js';
import { readConfirmationProjection } from '../../queries/journeys.js';
import {
  lockActiveTraveller,
  requireHoldWithinCaps,
  requireUnpaidWithinCap,
  type AccountCaps,
} from '../inventory-caps.js';
import { iso } from '../../row-fields.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import type { QuoteResponse } from '../quote.js';
import { requireConnectedLegs } from './connections.js';
import { discardUnheldJourney, unbindUnheldOrder } from './draft.js';
import { expireOverdueInLockedScope } from './expire-overdue.js';
import { inLockedScope, JourneyRefusal, serialRows, setScopeStatus, type LockedScope } from './scope.js';

export interface PlaceHoldInput {
  scope: ConfirmationScope;
  /** Chosen by the workflow, so a retry of the same hold finds its batch instead of making a second. */
  holdBatchId: string;
  /** How long the hold lasts (HOLD_MINUTES after the time scale). */
  holdMilliseconds: number;
  ownerUserId: string;
  /** The account's abuse caps (config, through the hold Update); absent, none is enforced. */
  caps?: AccountCaps | undefined;
  /** The change-time rules (config TRANSFER_*) a connection must still meet. */
  transfer: TransferSettings;
}

export interface PlacedHold {
  holdBatchId: string;
  /** ISO 8601. */
  expiresAt: string;
}

interface HoldLeg {
  journey_id: string;
  sequence: number;
  trip_id: string;
  board_sequence: number;
  alight_sequence: number;
  upcoming: boolean;
}

/**
 * Holds the seats of every leg of every journey of the scope, in one transaction: a hold batch
 * (one ACTIVE per scope) and its HELD seat allocations. The trips are locked in id order first,
 * so concurrent holds on a trip take turns and each sees the seats the previous one took; expired
 * holds on those trips are marked EXPIRED then, since the exclusion constraint still counts them.
 * Seats are the ones assigned in the quote, else the lowest free ones for the leg's stretch. A
 * seat taken meanwhile, an assigned seat whose class is no longer the one the quote priced (a layout
 * saved or the bus swapped since), or too few free seats refuse the whole hold with 409
 * SEATS_UNAVAILABLE. A connection whose change can no longer be made (a delay announced on its
 * first leg since the quote) is 409 LEGS_NO_LONGER_CONNECTED, judged once its trips are locked.
 * With input.caps the owner's row is locked (after the scope, before the trips) and the hold is
 * refused, rolled back whole, when the owner already has UNPAID_BOOKINGS_MAX unpaid bookings or its
 * seats would take the owner past a held-seat cap (409 UNPAID_BOOKING_LIMIT_REACHED,
 * SEAT_HOLD_LIMIT_REACHED).
 */
export async function placeHold(db: Database, input: PlaceHoldInput): Promise<PlacedHold> {
  return (await placeHoldThenRead(db, input, async () => undefined, isRefusal)).placed;
}

/**
 * placeHold for the hold route: the new hold's confirmation projection (as its owner reads it) is
 * read in the same transaction, without another round of connections and statements. A retry
 * answered with its existing batch reads nothing (`projection` undefined): the caller reads it
 * as any read does, expiring an overdue hold first.
 */
export async function placeHoldWithProjection(db: Database, input: PlaceHoldInput) {
  const { placed, read } = await placeHoldThenRead(
    db,
    input,
    (client) => readConfirmationProjection(serialRows(client), input.scope, input.ownerUserId),
    () => true,
  );
  return { placed, projection: read ?? undefined };
}

/**
 * placeHold, then `read` in the same transaction when this call placed the hold (not for a retry).
 * Run again on a deadlock: the hold locks its scope, the owner's row, then the trips, while a confirm
 * of the owner's other journey on one of those trips locks the trip, its scope, then the owner's row
 * (test/api/customer/hold-confirm-races.test.ts); the side PostgreSQL ends has written nothing.
 * A draft writes its journeys (and binds an order's) in a transaction of its own, before this one:
 * when this hold fails as `undoAfter` says, what the draft wrote for a scope never held is undone
 * (a refusal writes nothing; a guest quote stays unclaimed), and the failure is the answer whatever
 * the undo meets. The route undoes after any failure (a 500 binds nothing either: its retry drafts
 * again); an activity only after a refusal, since its retry holds the scope as drafted.
 */
async function placeHoldThenRead<T>(
  db: Database,
  input: PlaceHoldInput,
  read: (client: PoolClient) => Promise<T>,
  undoAfter: (error: unknown) => boolean,
): Promise<{ placed: PlacedHold; read?: T }> {
  try {
    return await withDeadlockRetry(() =>
      inLockedScope(db, input.scope, async (client, locked) => {
        const placed = await placeLockedHold(client, locked, input);
        return placed.retry ? { placed: placed.hold } : { placed: placed.hold, read: await read(client) };
      }),
    );
  } catch (error) {
    if (undoAfter(error)) {
      const undo = input.scope.kind === 'ORDER' ? unbindUnheldOrder : discardUnheldJourney;
      await undo(db, input.scope.id).catch(() => undefined);
    }
    throw error;
  }
}

const isRefusal = (error: unknown) => error instanceof JourneyRefusal;

async function placeLockedHold(
  client: PoolClient,
  locked: LockedScope,
  input: PlaceHoldInput,
): Promise<{ hold: PlacedHold; retry: boolean }> {
  const retried = await retriedHold(client, input.holdBatchId);
  if (retried) return { hold: retried, retry: true };
  if (input.scope.kind === 'JOURNEY' && locked.journeys[0]!.order_id) {
    throw new JourneyRefusal(
      409,
      'JOURNEY_IN_ORDER',
      'This journey belongs to a journey order; hold and confirm the order',
    );
  }
  // The scope's own hold ran out with nobody to expire it yet: this writer does.
  await expireOverdueInLockedScope(client, input.scope, locked);
  const refusal = holdRefusal(locked.status);
  if (refusal) throw new JourneyRefusal(409, refusal.code, refusal.message);

  const { rows: legs } = await client.query<HoldLeg>(
    `select l.journey_id, l.sequence, l.trip_id, l.board_sequence, l.alight_sequence, bc.departure_at > now() as upcoming
     from journey_legs l join trip_stop_calls bc on bc.id = l.board_stop_call_id
     where l.journey_id = any($1::uuid[]) order by l.journey_id, l.sequence`,
    [locked.journeyIds],
  );
  if (input.caps) {
    await lockActiveTraveller(client, input.ownerUserId);
    await requireUnpaidWithinCap(client, input.ownerUserId, input.caps, 1);
  }
  await prepareLegTrips(client, legs);
  await requireConnectedLegs(client, legs, input.transfer);
  const expiresAt = await insertBatch(client, input);
  const resources = await quotedResources(client, locked.journeyIds);
  for (const leg of legs) {
    await holdLegSeats(client, leg, resources.get(`${leg.journey_id}:${leg.sequence}`) ?? [], {
      expiresAt,
      holdBatchId: input.holdBatchId,
    });
  }
  if (input.caps) await requireHoldWithinCaps(client, input.ownerUserId, input.caps, input.holdBatchId);
  await setScopeStatus(client, input.scope, { status: 'HELD', failureReason: null, deadline: null });
  return { hold: { holdBatchId: input.holdBatchId, expiresAt }, retry: false };
}

/**
 * The hold a retry (same idempotency key, so the same batch id) is answered with: its batch while
 * ACTIVE with time left. A key whose hold ended (released, expired) or ran out unwritten
 * cannot hold again, nor may it answer 200 with a hold that holds nothing: 409 HOLD_CLOSED or
 * HOLD_EXPIRED (as a confirm of that batch answers), nothing written. Undefined for a new batch id.
 * The scope lock orders this against the batch's release, expiry and confirm.
 */
async function retriedHold(client: PoolClient, holdBatchId: string): Promise<PlacedHold | undefined> {
  const { rows } = await client.query<{ expires_at: string; status: HoldBatchStatus; live: boolean }>(
    `select expires_at, status, expires_at > now() as live from hold_batches where id = $1`,
    [holdBatchId],
  );
  const batch = rows[0];
  if (!batch) return undefined;
  const ended = unusableHoldRefusal(batch);
  if (ended) {
    const state = ended.code === 'HOLD_CLOSED' ? `is already ${batch.status}` : 'has expired';
    throw new JourneyRefusal(
      409,
      ended.code,
      `The hold of this idempotency_key ${state}; hold again with another key`,
      {
        hold_batch_id: holdBatchId,
      },
    );
  }
  return { holdBatchId, expiresAt: iso(batch.expires_at) };
}

/**
 * Locks the legs' trips in id order (concurrent holds on a trip take turns), refuses a trip that
 * can no longer be booked, and marks expired holds on them EXPIRED: the exclusion constraint
 * still counts those. The trips' status is the one read with the lock: a CANCEL that held the trip
 * while the legs were read has committed by then (test/api/dashboard/cancel-races.test.ts).
 * The companies' standing is read by the next statement, whose snapshot follows the lock: the
 * locking statement sees the rows it joins as they were when it began, so a suspension committed
 * while the hold waited for a trip would go unseen (test/api/admin/suspension.test.ts). That
 * statement holds the company rows FOR SHARE to the end: a suspension (their update lock) waits for
 * a hold in flight, which is then one placed before it, and a hold reading while a suspension is in
 * flight waits for it (test/api/admin/suspension-hold-order.test.ts). A suspended company's trips
 * leave every inventory scope: 404 TRIP_NOT_FOUND, as the draft answers a hold sent after the
 * suspension (draft.ts).
 */
async function prepareLegTrips(client: PoolClient, legs: HoldLeg[]): Promise<void> {
  const tripIds = [...new Set(legs.map((leg) => leg.trip_id))].sort();
  const { rows: locked } = await client.query<{ id: string; status: string }>(
    `select id, status from trips where id = any($1::uuid[]) order by id for no key update`,
    [tripIds],
  );
  const suspended = await expireLapsedHoldsReadingSuspended(client, tripIds);
  const outOfScope = legs.find((leg) => suspended.has(leg.trip_id));
  if (outOfScope) {
    throw new JourneyRefusal(404, 'TRIP_NOT_FOUND', 'No such trip', {
      journey_id: outOfScope.journey_id,
      leg_sequence: outOfScope.sequence,
    });
  }
  const bookable = new Set(locked.filter((trip) => isBookableStatus(trip.status)).map((trip) => trip.id));
  const unbookable = legs.find((leg) => !bookable.has(leg.trip_id) || !leg.upcoming);
  if (unbookable) {
    throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', {
      journey_id: unbookable.journey_id,
      leg_sequence: unbookable.sequence,
    });
  }
}

/**
 * Marks the expired holds on the locked trips EXPIRED and answers those of the trips whose company
 * is not ACTIVE, in one statement: the company check costs the hold no round trip of its own. Every
 * trip's company row is taken FOR SHARE, in id order, after the trips (the hold's last lock): other
 * holds, confirms and decisions share it; only a company's own change holds it exclusively (its
 * standing, settings, team, keys), and none of those waits for a trip, scope or traveller.
 */
async function expireLapsedHoldsReadingSuspended(
  client: PoolClient,
  tripIds: string[],
): Promise<Set<string>> {
  const { rows } = await client.query<{ id: string; active: boolean }>(
    `with expired as (
       update seat_allocations set status = 'EXPIRED', released_at = now()
       where ${allocationsInIdOrder(`trip_id = any($1::uuid[]) and status = 'HELD' and expires_at <= now()`)}
     )
     select t.id, c.status = 'ACTIVE' as active from trips t join companies c on c.id = t.company_id
     where t.id = any($1::uuid[]) order by c.id, t.id for share of c`,
    [tripIds],
  );
  return new Set(rows.filter((row) => !row.active).map((row) => row.id));
}

/** The scope's new ACTIVE hold batch; a second one (a concurrent hold) is the domain's HOLD_ALREADY_ACTIVE. */
async function insertBatch(client: PoolClient, input: PlaceHoldInput): Promise<string> {
  try {
    const { rows } = await client.query<{ expires_at: string }>(
      `insert into hold_batches (id, scope_kind, scope_id, owner_user_id, expires_at)
         values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') returning expires_at`,
      [input.holdBatchId, input.scope.kind, input.scope.id, input.ownerUserId, input.holdMilliseconds],
    );
    return iso(rows[0]!.expires_at);
  } catch (error) {
    const active = holdRefusal('HELD');
    if (active && pgCode(error) === PG_UNIQUE_VIOLATION)
      throw new JourneyRefusal(409, active.code, active.message);
    throw error;
  }
}

/** The quoted resources of each leg (key `${journeyId}:${legSequence}`), from the quote the journey was drafted from. */
async function quotedResources(
  client: PoolClient,
  journeyIds: string[],
): Promise<Map<string, QuotedResource[]>> {
  const { rows } = await client.query<{ journey_id: string; response: QuoteResponse }>(
    `select j.id as journey_id, q.response from journeys j join journey_quotes q on q.id = j.quote_id where j.id = any($1::uuid[])`,
    [journeyIds],
  );
  const byLeg = new Map<string, QuotedResource[]>();
  for (const row of rows) {
    for (const leg of row.response.legs) {
      byLeg.set(
        `${row.journey_id}:${leg.sequence}`,
        leg.resources.map((resource) => ({
          resourceCode: resource.resource_code,
          quantity: resource.quantity,
          assignments: resource.assignments,
          assignedClasses: resource.assignment_classes,
        })),
      );
    }
  }
  return byLeg;
}

interface LayoutSeatRow {
  seat_id: string;
  seat_number: string;
  deck: number;
  seat_class: 'STANDARD' | 'VIP';
  free: boolean;
}

const toLegSeat = (row: LayoutSeatRow): LegSeat => ({
  seatId: row.seat_id,
  seatNumber: row.seat_number,
  deck: row.deck,
  seatClass: row.seat_class,
  free: row.free,
});

async function holdLegSeats(
  client: PoolClient,
  leg: HoldLeg,
  resources: QuotedResource[],
  batch: { expiresAt: string; holdBatchId: string },
): Promise<void> {
  const { rows } = await client.query<LayoutSeatRow>(
    `select ls.seat_id, ls.seat_number, ls.deck, ls.seat_class,
            not exists (select 1 from seat_allocations a
                        where a.trip_id = t.id and a.seat_id = ls.seat_id and a.status in ('HELD', 'CONFIRMED')
                          and a.board_sequence < $3 and a.alight_sequence > $2) as free
     from trips t
     join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     join layout_seats ls on ls.layout_id = bl.id
     where t.id = $1`,
    [leg.trip_id, leg.board_sequence, leg.alight_sequence],
  );
  const choice = chooseSeats(rows.map(toLegSeat), resources);
  const details = { journey_id: leg.journey_id, leg_sequence: leg.sequence, trip_id: leg.trip_id };
  if (choice.unavailable) {
    throw new JourneyRefusal(
      409,
      'SEATS_UNAVAILABLE',
      choice.unavailable.length
        ? 'A chosen seat was taken, or its class changed, since the quote on this part of the trip; quote again'
        : 'Not enough free seats are left on this part of the trip',
      { ...details, seats: choice.unavailable },
    );
  }
  try {
    await client.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at, hold_batch_id,
                                     owner_kind, owner_id)
       select $1, seat_id, $2, $3, 'HELD', $4, $5, 'JOURNEY', $6 from unnest($7::text[]) as seat_id`,
      [
        leg.trip_id,
        leg.board_sequence,
        leg.alight_sequence,
        batch.expiresAt,
        batch.holdBatchId,
        leg.journey_id,
        choice.seats.map((seat) => seat.seatId),
      ],
    );
  } catch (error) {
    // The trip lock makes this rare; another writer that does not take it may still win a seat.
    if (pgCode(error) === PG_EXCLUSION_VIOLATION || pgCode(error) === PG_UNIQUE_VIOLATION) {
      throw new JourneyRefusal(
        409,
        'SEATS_UNAVAILABLE',
        'A seat was taken meanwhile on this part of the trip; try again',
        details,
      );
    }
    throw error;
  }
}
