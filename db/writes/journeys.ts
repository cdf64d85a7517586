import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  chooseSeats,
  companiesNeedingDecision,
  decisionDeadline,
  FAILURE_REASONS,
  isHoldable,
  scopeDeadline,
  seatTravellers,
  type BookingChannel,
  type CompanyConfirmationSettings,
  type ConfirmationMode,
  type ConfirmationScope,
  type JourneyStatus,
  type LegSeat,
  type QuotedResource,
} from '../../domain/journey-confirmation.js';
import type { Database } from '../orm.js';
import { PG_EXCLUSION_VIOLATION, PG_UNIQUE_VIOLATION, pgCode } from '../pg-errors.js';
import { isBookableStatus } from '../queries/inventory.js';
import { companyScopeSql } from '../queries/scope.js';
import { signTicketsOf, type SigningOptions } from './boarding-credentials.js';
import type { QuoteResponse } from './quote.js';
import { Refusal } from '../../domain/refusal.js';

/**
 * The journey confirmation transactions (SPEC "Journey confirmation", "Company decision on a
 * journey request"). A scope is a journey (bookingId) or a journey order; every write below is
 * ONE transaction that first locks the scope's rows (order, then journeys in id order), so two
 * transitions of one scope never interleave, and each is idempotent under retry: running it
 * again after it committed finds the work done and answers as the first run did.
 *
 * Workflow activities call these; the benchmark calls them directly to measure the bare cost.
 */

/** A business refusal: a stable errorCode, its HTTP status and safe text. */
export class JourneyRefusal extends Refusal {
  declare readonly status: 400 | 404 | 409;
  constructor(status: 400 | 404 | 409, code: string, message: string, details?: Record<string, unknown>) {
    super(status, code, message, details);
  }
}

type Queryable = Pick<PoolClient, 'query'>;

const instant = (value: unknown) => new Date(value as string | Date);

// ---------------------------------------------------------------------------------------------
// Drafts: the quote becomes a journey (journeys.id = journey_quotes.journey_id)
// ---------------------------------------------------------------------------------------------
export interface DraftCaller {
  userId: string;
  scope: InventoryScope;
}

interface QuoteRow {
  id: string;
  journey_id: string;
  owner_user_id: string | null;
  scope: InventoryScope | string;
  party_size: number;
  response: QuoteResponse | string;
  total: string;
  currency: string;
  live: boolean;
}

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function sameScope(a: InventoryScope, b: InventoryScope): boolean {
  return a.kind === b.kind && (a.kind !== 'DEMO' || (b.kind === 'DEMO' && a.companyId === b.companyId));
}

/**
 * The checks a quote must pass before anything is held for it: it is this journey's, the caller
 * may use it (a guest quote is claimed by the first signed-in hold), it has not expired, and every
 * trip is still bookable in the caller's inventory scope (else 404 TRIP_NOT_FOUND, as for a trip
 * that does not exist).
 */
async function checkQuote(
  q: Queryable,
  caller: DraftCaller,
  quote: QuoteRow | undefined,
  journeyId: string,
): Promise<QuoteRow> {
  const details = { journey_id: journeyId };
  if (
    !quote ||
    quote.journey_id !== journeyId ||
    (quote.owner_user_id !== null && quote.owner_user_id !== caller.userId)
  ) {
    throw new JourneyRefusal(404, 'QUOTE_NOT_FOUND', 'No such quote for this journey', details);
  }
  if (!quote.live)
    throw new JourneyRefusal(409, 'QUOTE_EXPIRED', 'The quote has expired; quote the journey again', details);
  const legs = parsed(quote.response).legs;
  if (!sameScope(parsed(quote.scope), caller.scope))
    throw new JourneyRefusal(404, 'TRIP_NOT_FOUND', 'No such trip', details);
  const params: unknown[] = [legs.map((leg) => leg.trip_id), legs.map((leg) => leg.board.stop_call_id)];
  const inScope = companyScopeSql(caller.scope, params, 'c');
  const { rows } = await q.query<{ trip_id: string; status: string; upcoming: boolean }>(
    `select t.id as trip_id, t.status, bc.departure_at > now() as upcoming
     from unnest($1::uuid[], $2::uuid[]) as l(trip_id, board_id)
     join trips t on t.id = l.trip_id
     join companies c on c.id = t.company_id and ${inScope}
     join trip_stop_calls bc on bc.id = l.board_id`,
    params,
  );
  if (rows.length !== legs.length) throw new JourneyRefusal(404, 'TRIP_NOT_FOUND', 'No such trip', details);
  if (rows.some((row) => !isBookableStatus(row.status) || !row.upcoming)) {
    throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', details);
  }
  return quote;
}

const QUOTE_COLUMNS = `id, journey_id, owner_user_id, scope, party_size, response, total, currency, expires_at > now() as live`;

/** Inserts the journey and its legs from the quote unless they exist; returns the journey row, locked. */
async function ensureJourney(client: PoolClient, caller: DraftCaller, quote: QuoteRow): Promise<JourneyRow> {
  const response = parsed(quote.response);
  await client.query(
    `insert into journeys (id, quote_id, owner_user_id, passenger_id, party_size, total_price, currency)
     select $1, $2, u.id, u.passenger_id, $4, $5, $6 from users u where u.id = $3
     on conflict (id) do nothing`,
    [quote.journey_id, quote.id, caller.userId, quote.party_size, Number(quote.total), quote.currency],
  );
  await client.query(
    `insert into journey_legs (journey_id, sequence, trip_id, company_id, board_stop_call_id, alight_stop_call_id,
                               board_sequence, alight_sequence, unit_price, quantity, subtotal)
     select $1, l.sequence, l.trip_id, l.company_id, l.board_id, l.alight_id, l.board_sequence, l.alight_sequence,
            l.unit_price, l.quantity, l.subtotal
     from jsonb_to_recordset($2::jsonb) as l(sequence int, trip_id uuid, company_id uuid, board_id uuid, alight_id uuid,
                                            board_sequence int, alight_sequence int, unit_price bigint, quantity int, subtotal bigint)
     on conflict do nothing`,
    [
      quote.journey_id,
      JSON.stringify(
        response.legs.map((leg) => ({
          sequence: leg.sequence,
          trip_id: leg.trip_id,
          company_id: leg.company_id,
          board_id: leg.board.stop_call_id,
          alight_id: leg.alight.stop_call_id,
          board_sequence: leg.board.sequence,
          alight_sequence: leg.alight.sequence,
          unit_price: leg.unit_price,
          quantity: leg.quantity,
          subtotal: leg.subtotal,
        })),
      ),
    ],
  );
  const { rows } = await client.query<JourneyRow>(
    `select id, quote_id, order_id, owner_user_id, status, party_size from journeys where id = $1 for update`,
    [quote.journey_id],
  );
  const journey = rows[0]!;
  if (journey.owner_user_id !== caller.userId) {
    throw new JourneyRefusal(404, 'QUOTE_NOT_FOUND', 'No such quote for this journey', {
      journey_id: journey.id,
    });
  }
  return journey;
}

export interface DraftResult {
  scope: ConfirmationScope;
  companyIds: string[];
}

const companiesOf = (quotes: QuoteRow[]) =>
  [...new Set(quotes.flatMap((quote) => parsed(quote.response).legs.map((leg) => leg.company_id)))].sort();

/**
 * POST /journeys/{bookingId}/hold, before the workflow: checks the quote and writes the draft
 * journey (and its legs) when it is not there yet. Refuses a journey that belongs to an order or
 * is past holding; a journey already HELD passes (the workflow answers a retry or refuses).
 */
export async function draftJourney(
  db: Database,
  caller: DraftCaller,
  input: { journeyId: string; quoteId: string },
): Promise<DraftResult> {
  const quote = await db.transaction(async (client) => {
    const { rows } = await client.query<QuoteRow>(
      `select ${QUOTE_COLUMNS} from journey_quotes where id = $1`,
      [input.quoteId],
    );
    const checked = await checkQuote(client, caller, rows[0], input.journeyId);
    const journey = await ensureJourney(client, caller, checked);
    if (journey.order_id) {
      throw new JourneyRefusal(
        409,
        'JOURNEY_IN_ORDER',
        'This journey belongs to a journey order; hold and confirm the order',
      );
    }
    if (!isHoldable(journey.status) && journey.status !== 'HELD') {
      throw new JourneyRefusal(
        409,
        'JOURNEY_NOT_HOLDABLE',
        `The journey is ${journey.status} and cannot be held again`,
      );
    }
    return checked;
  });
  return { scope: { kind: 'JOURNEY', id: input.journeyId }, companyIds: companiesOf([quote]) };
}

/**
 * POST /journey-orders/{orderId}/hold, before the workflow: the order id is chosen by the client
 * and bound to the caller on first use (another traveller gets 404); its journeys are fixed by the
 * first hold, and a later hold (after release or expiry) must name the same ones. Each journey is
 * checked like a single journey's hold and must not belong to another order or be held alone.
 */
export async function draftOrder(
  db: Database,
  caller: DraftCaller,
  input: { orderId: string; journeyIds: string[] },
): Promise<DraftResult> {
  const quotes = await db.transaction(async (client) => {
    const { rows } = await client.query<QuoteRow>(
      `select ${QUOTE_COLUMNS} from journey_quotes where journey_id = any($1::uuid[])`,
      [input.journeyIds],
    );
    const checked: QuoteRow[] = [];
    for (const journeyId of input.journeyIds) {
      checked.push(
        await checkQuote(
          client,
          caller,
          rows.find((row) => row.journey_id === journeyId),
          journeyId,
        ),
      );
    }
    await bindOrder(client, caller, input, checked);
    return checked;
  });
  return { scope: { kind: 'ORDER', id: input.orderId }, companyIds: companiesOf(quotes) };
}

async function bindOrder(
  client: PoolClient,
  caller: DraftCaller,
  input: { orderId: string; journeyIds: string[] },
  quotes: QuoteRow[],
): Promise<void> {
  await client.query(
    `insert into journey_orders (id, owner_user_id, passenger_id, total_price, currency)
       select $1, u.id, u.passenger_id, $3, $4 from users u where u.id = $2
       on conflict (id) do nothing`,
    [
      input.orderId,
      caller.userId,
      quotes.reduce((sum, quote) => sum + Number(quote.total), 0),
      quotes[0]!.currency,
    ],
  );
  const { rows: orders } = await client.query<{ owner_user_id: string; status: JourneyStatus }>(
    `select owner_user_id, status from journey_orders where id = $1 for update`,
    [input.orderId],
  );
  const order = orders[0]!;
  if (order.owner_user_id !== caller.userId)
    throw new JourneyRefusal(404, 'ORDER_NOT_FOUND', 'No such journey order');
  if (!isHoldable(order.status) && order.status !== 'HELD') {
    throw new JourneyRefusal(
      409,
      'JOURNEY_NOT_HOLDABLE',
      `The order is ${order.status} and cannot be held again`,
    );
  }
  const { rows: members } = await client.query<{ id: string }>(
    `select id from journeys where order_id = $1`,
    [input.orderId],
  );
  const wanted = [...input.journeyIds].sort();
  if (
    members.length &&
    members
      .map((member) => member.id)
      .sort()
      .join() !== wanted.join()
  ) {
    throw new JourneyRefusal(
      409,
      'ORDER_JOURNEYS_MISMATCH',
      'This order already holds other journeys; send the same journey_ids',
    );
  }
  for (const quote of [...quotes].sort((a, b) => a.journey_id.localeCompare(b.journey_id))) {
    const journey = await ensureJourney(client, caller, quote);
    const details = { journey_id: journey.id };
    if (journey.order_id && journey.order_id !== input.orderId) {
      throw new JourneyRefusal(
        409,
        'JOURNEY_IN_ORDER',
        'A journey already belongs to another order',
        details,
      );
    }
    if (!journey.order_id && !isHoldable(journey.status)) {
      throw new JourneyRefusal(
        409,
        'JOURNEY_NOT_HOLDABLE',
        `A journey is ${journey.status} on its own and cannot join an order`,
        details,
      );
    }
    await client.query(
      `update journeys set order_id = $2, updated_at = now() where id = $1 and order_id is null`,
      [journey.id, input.orderId],
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Scope locking and status
// ---------------------------------------------------------------------------------------------

export interface JourneyRow {
  id: string;
  quote_id: string;
  order_id: string | null;
  owner_user_id: string;
  status: JourneyStatus;
  party_size: number;
}

interface LockedScope {
  status: JourneyStatus;
  journeys: JourneyRow[];
  journeyIds: string[];
}

/** Locks the scope's rows (order first, then journeys in id order) and returns them. */
async function lockScope(client: PoolClient, scope: ConfirmationScope): Promise<LockedScope> {
  let orderStatus: JourneyStatus | undefined;
  if (scope.kind === 'ORDER') {
    const { rows } = await client.query<{ status: JourneyStatus }>(
      `select status from journey_orders where id = $1 for update`,
      [scope.id],
    );
    orderStatus = rows[0]?.status;
  }
  const { rows: journeys } = await client.query<JourneyRow>(
    `select id, quote_id, order_id, owner_user_id, status, party_size from journeys
     where ${scope.kind === 'JOURNEY' ? 'id' : 'order_id'} = $1 order by id for update`,
    [scope.id],
  );
  if (!journeys.length || (scope.kind === 'ORDER' && !orderStatus)) {
    throw new JourneyRefusal(404, 'JOURNEY_NOT_FOUND', 'No such journey or order');
  }
  return {
    status: orderStatus ?? journeys[0]!.status,
    journeys,
    journeyIds: journeys.map((journey) => journey.id),
  };
}

interface ScopeChange {
  status: JourneyStatus;
  failureReason?: string | null;
  /** The decision deadline the traveller sees; unchanged when undefined. */
  deadline?: Date | null;
  channel?: BookingChannel;
}

/** Writes the same state on the order (when the scope is one) and on every journey of the scope. */
async function setScopeStatus(
  client: PoolClient,
  scope: ConfirmationScope,
  change: ScopeChange,
): Promise<void> {
  const set = `status = $2,
    failure_reason = case when $3::boolean then $4 else failure_reason end,
    confirmation_deadline = case when $5::boolean then $6::timestamptz else confirmation_deadline end,
    channel = coalesce($7, channel),
    confirmed_at = case when $2 = 'CONFIRMED' then now() else confirmed_at end,
    closed_at = case when $2 in ('CANCELLED', 'RELEASED', 'EXPIRED') then now() when $2 = 'HELD' then null else closed_at end,
    updated_at = now()`;
  const params = [
    scope.id,
    change.status,
    change.failureReason !== undefined,
    change.failureReason ?? null,
    change.deadline !== undefined,
    change.deadline ?? null,
    change.channel ?? null,
  ];
  if (scope.kind === 'ORDER') await client.query(`update journey_orders set ${set} where id = $1`, params);
  await client.query(
    `update journeys set ${set} where ${scope.kind === 'JOURNEY' ? 'id' : 'order_id'} = $1`,
    params,
  );
}

// ---------------------------------------------------------------------------------------------
// Hold
// ---------------------------------------------------------------------------------------------

export interface PlaceHoldInput {
  scope: ConfirmationScope;
  /** Chosen by the workflow, so a retry of the same hold finds its batch instead of making a second. */
  holdBatchId: string;
  /** How long the hold lasts (HOLD_MINUTES after the time scale). */
  holdMilliseconds: number;
  ownerUserId: string;
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
  status: string;
  upcoming: boolean;
}

/**
 * Holds the seats of every leg of every journey of the scope, in one transaction: a hold batch
 * (one ACTIVE per scope) and its HELD seat allocations. The trips are locked in id order first,
 * so concurrent holds on a trip take turns and each sees the seats the previous one took; expired
 * holds on those trips are marked EXPIRED then, since the exclusion constraint still counts them.
 * Seats are the ones assigned in the quote, else the lowest free ones for the leg's stretch. A
 * seat taken meanwhile (or too few free seats) refuses the whole hold with 409 SEATS_UNAVAILABLE.
 */
export async function placeHold(db: Database, input: PlaceHoldInput): Promise<PlacedHold> {
  return db.transaction(async (client) => {
    const locked = await lockScope(client, input.scope);
    const { rows: existing } = await client.query<{ expires_at: string }>(
      `select expires_at from hold_batches where id = $1`,
      [input.holdBatchId],
    );
    if (existing[0])
      return { holdBatchId: input.holdBatchId, expiresAt: instant(existing[0].expires_at).toISOString() };
    if (input.scope.kind === 'JOURNEY' && locked.journeys[0]!.order_id) {
      throw new JourneyRefusal(
        409,
        'JOURNEY_IN_ORDER',
        'This journey belongs to a journey order; hold and confirm the order',
      );
    }
    if (locked.status === 'HELD')
      throw new JourneyRefusal(409, 'HOLD_ALREADY_ACTIVE', 'A hold is already active; release it or confirm');
    if (!isHoldable(locked.status))
      throw new JourneyRefusal(
        409,
        'JOURNEY_NOT_HOLDABLE',
        `The journey is ${locked.status} and cannot be held again`,
      );

    const { rows: legs } = await client.query<HoldLeg>(
      `select l.journey_id, l.sequence, l.trip_id, l.board_sequence, l.alight_sequence, t.status, bc.departure_at > now() as upcoming
       from journey_legs l join trips t on t.id = l.trip_id join trip_stop_calls bc on bc.id = l.board_stop_call_id
       where l.journey_id = any($1::uuid[]) order by l.journey_id, l.sequence`,
      [locked.journeyIds],
    );
    const tripIds = [...new Set(legs.map((leg) => leg.trip_id))].sort();
    await client.query(`select id from trips where id = any($1::uuid[]) order by id for no key update`, [
      tripIds,
    ]);
    const unbookable = legs.find((leg) => !isBookableStatus(leg.status) || !leg.upcoming);
    if (unbookable) {
      throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', {
        journey_id: unbookable.journey_id,
        leg_sequence: unbookable.sequence,
      });
    }
    await client.query(
      `update seat_allocations set status = 'EXPIRED', released_at = now()
       where trip_id = any($1::uuid[]) and status = 'HELD' and expires_at <= now()`,
      [tripIds],
    );

    let expiresAt: string;
    try {
      const { rows } = await client.query<{ expires_at: string }>(
        `insert into hold_batches (id, scope_kind, scope_id, owner_user_id, expires_at)
         values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') returning expires_at`,
        [input.holdBatchId, input.scope.kind, input.scope.id, input.ownerUserId, input.holdMilliseconds],
      );
      expiresAt = instant(rows[0]!.expires_at).toISOString();
    } catch (error) {
      if (pgCode(error) === PG_UNIQUE_VIOLATION) {
        throw new JourneyRefusal(
          409,
          'HOLD_ALREADY_ACTIVE',
          'A hold is already active; release it or confirm',
        );
      }
      throw error;
    }

    const resources = await quotedResources(client, locked.journeyIds);
    for (const leg of legs) {
      await holdLegSeats(client, leg, resources.get(`${leg.journey_id}:${leg.sequence}`) ?? [], {
        expiresAt,
        holdBatchId: input.holdBatchId,
      });
    }
    await setScopeStatus(client, input.scope, { status: 'HELD', failureReason: null, deadline: null });
    return { holdBatchId: input.holdBatchId, expiresAt };
  });
}

/** The quoted resources of each leg (key `${journeyId}:${legSequence}`), from the quote the journey was drafted from. */
async function quotedResources(
  client: PoolClient,
  journeyIds: string[],
): Promise<Map<string, QuotedResource[]>> {
  const { rows } = await client.query<{ journey_id: string; response: QuoteResponse | string }>(
    `select j.id as journey_id, q.response from journeys j join journey_quotes q on q.id = j.quote_id where j.id = any($1::uuid[])`,
    [journeyIds],
  );
  const byLeg = new Map<string, QuotedResource[]>();
  for (const row of rows) {
    for (const leg of parsed(row.response).legs) {
      byLeg.set(
        `${row.journey_id}:${leg.sequence}`,
        leg.resources.map((resource) => ({
          resourceCode: resource.resource_code,
          quantity: resource.quantity,
          assignments: resource.assignments,
        })),
      );
    }
  }
  return byLeg;
}

async function holdLegSeats(
  client: PoolClient,
  leg: HoldLeg,
  resources: QuotedResource[],
  batch: { expiresAt: string; holdBatchId: string },
): Promise<void> {
  const { rows } = await client.query<{
    seat_id: string;
    seat_number: string;
    deck: number;
    seat_class: 'STANDARD' | 'VIP';
    free: boolean;
  }>(
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
  const layout: LegSeat[] = rows.map((row) => ({
    seatId: row.seat_id,
    seatNumber: row.seat_number,
    deck: row.deck,
    seatClass: row.seat_class,
    free: row.free,
  }));
  const choice = chooseSeats(layout, resources);
  const details = { journey_id: leg.journey_id, leg_sequence: leg.sequence, trip_id: leg.trip_id };
  if (choice.unavailable) {
    throw new JourneyRefusal(
      409,
      'SEATS_UNAVAILABLE',
      choice.unavailable.length
        ? 'A chosen seat was taken meanwhile on this part of the trip; quote again and choose other seats'
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

// ---------------------------------------------------------------------------------------------
// Release and expiry of a hold
// ---------------------------------------------------------------------------------------------

interface BatchRow {
  id: string;
  scope_kind: string;
  scope_id: string;
  status: 'ACTIVE' | 'CONSUMED' | 'RELEASED' | 'EXPIRED';
  live: boolean;
}

async function lockBatch(
  client: PoolClient,
  scope: ConfirmationScope,
  holdBatchId: string,
): Promise<BatchRow> {
  const { rows } = await client.query<BatchRow>(
    `select id, scope_kind, scope_id, status, expires_at > now() as live from hold_batches where id = $1 for update`,
    [holdBatchId],
  );
  const batch = rows[0];
  if (!batch || batch.scope_kind !== scope.kind || batch.scope_id !== scope.id) {
    throw new JourneyRefusal(404, 'HOLD_NOT_FOUND', 'No such hold batch for this journey');
  }
  return batch;
}

/** Ends an ACTIVE hold batch: its HELD allocations and the scope take `status` (RELEASED or EXPIRED). */
async function closeBatch(
  client: PoolClient,
  scope: ConfirmationScope,
  holdBatchId: string,
  status: 'RELEASED' | 'EXPIRED',
): Promise<void> {
  await client.query(`update hold_batches set status = $2, closed_at = now() where id = $1`, [
    holdBatchId,
    status,
  ]);
  await client.query(
    `update seat_allocations set status = $2, released_at = now() where hold_batch_id = $1 and status = 'HELD'`,
    [holdBatchId, status],
  );
  await setScopeStatus(client, scope, { status });
}

/**
 * DELETE .../holds/{holdBatchId}: frees the seats of an ACTIVE batch (allocations and batch
 * RELEASED, scope RELEASED). A batch already released answers the same (a retry); a consumed or
 * expired one is 409 HOLD_CLOSED.
 */
export async function releaseHold(
  db: Database,
  input: { scope: ConfirmationScope; holdBatchId: string },
): Promise<{ holdBatchId: string; status: 'RELEASED' }> {
  return db.transaction(async (client) => {
    await lockScope(client, input.scope);
    const batch = await lockBatch(client, input.scope, input.holdBatchId);
    if (batch.status === 'ACTIVE') await closeBatch(client, input.scope, batch.id, 'RELEASED');
    else if (batch.status !== 'RELEASED')
      throw new JourneyRefusal(409, 'HOLD_CLOSED', `The hold is already ${batch.status}`);
    return { holdBatchId: batch.id, status: 'RELEASED' as const };
  });
}

/** The hold's time ran out unconfirmed: an ACTIVE batch becomes EXPIRED with its allocations and the scope. */
export async function expireHold(
  db: Database,
  input: { scope: ConfirmationScope; holdBatchId: string },
): Promise<{ expired: boolean }> {
  return db.transaction(async (client) => {
    await lockScope(client, input.scope);
    const batch = await lockBatch(client, input.scope, input.holdBatchId);
    if (batch.status !== 'ACTIVE') return { expired: false };
    await closeBatch(client, input.scope, batch.id, 'EXPIRED');
    return { expired: true };
  });
}

// ---------------------------------------------------------------------------------------------
// Confirm
// ---------------------------------------------------------------------------------------------

export interface ConfirmInput {
  scope: ConfirmationScope;
  holdBatchId: string;
  journeys: { journeyId: string; travellers: { name: string; phone?: string }[] }[];
  channel: BookingChannel;
  timeScale: number;
}

/** A company decision still awaited and how long is left until its deadline. */
export interface AwaitedDecision {
  companyId: string;
  remainingMilliseconds: number;
}

export interface ConfirmOutcome {
  status: 'CONFIRMED' | 'REQUESTED';
  /** ISO 8601: the earliest pending deadline when REQUESTED. */
  deadline: string | null;
  awaiting: AwaitedDecision[];
}

interface HeldSeat {
  allocation_id: string;
  journey_id: string;
  leg_sequence: number;
  trip_id: string;
  company_id: string;
  subtotal: string;
  seat_id: string;
  seat_number: string;
  deck: number;
}

/**
 * POST .../confirm: turns the ACTIVE hold into tickets, one per traveller and leg, in one
 * transaction. Each company's settings for the channel decide: all automatic → CONFIRMED
 * (allocations CONFIRMED, tickets signed and boarding_authorized, booking rows CONFIRMED); any
 * manual → REQUESTED (allocations stay HELD until the latest deadline, one confirmation request
 * per manual company due after its decision window, tickets PENDING_CONFIRMATION unsigned, booking
 * rows PENDING_CONFIRMATION). The batch is CONSUMED either way. A retry after commit answers the
 * same outcome with the time left.
 */
export async function confirmScope(
  db: Database,
  input: ConfirmInput,
  signing: SigningOptions = {},
): Promise<ConfirmOutcome> {
  return db.transaction(async (client) => {
    const locked = await lockScope(client, input.scope);
    const batch = await lockBatch(client, input.scope, input.holdBatchId);
    if (batch.status === 'CONSUMED' && (locked.status === 'REQUESTED' || locked.status === 'CONFIRMED')) {
      return currentOutcome(client, input.scope, locked.status);
    }
    if (batch.status !== 'ACTIVE')
      throw new JourneyRefusal(409, 'HOLD_CLOSED', `The hold is already ${batch.status}`);
    if (!batch.live)
      throw new JourneyRefusal(409, 'HOLD_EXPIRED', 'The hold has expired; hold the journey again');
    if (locked.status !== 'HELD')
      throw new JourneyRefusal(409, 'HOLD_CLOSED', `The journey is ${locked.status}`);

    const seats = await lockHeldSeats(client, input.holdBatchId);
    const tickets = ticketsFor(locked.journeys, seats, input.journeys);
    const companyIds = [...new Set(seats.map((seat) => seat.company_id))].sort();
    const decisions = companiesNeedingDecision(await confirmationSettings(client, companyIds), input.channel);

    await insertTickets(client, tickets);
    await client.query(`update hold_batches set status = 'CONSUMED', closed_at = now() where id = $1`, [
      input.holdBatchId,
    ]);
    if (decisions.length === 0) {
      await insertBookings(client, locked.journeyIds, seats, input, 'CONFIRMED');
      await finalizeConfirmed(client, input.scope, locked.journeyIds, signing, input.channel);
      return { status: 'CONFIRMED' as const, deadline: null, awaiting: [] };
    }
    await insertBookings(client, locked.journeyIds, seats, input, 'PENDING_CONFIRMATION');
    const now = await transactionTime(client);
    const deadlines = decisions.map((decision) =>
      decisionDeadline(now, decision.decisionWindowMinutes, input.timeScale),
    );
    await client.query(
      `insert into confirmation_requests (scope_kind, scope_id, company_id, deadline)
       select $1, $2, d.company_id, d.deadline from unnest($3::uuid[], $4::timestamptz[]) as d(company_id, deadline)`,
      [input.scope.kind, input.scope.id, decisions.map((decision) => decision.companyId), deadlines],
    );
    // Inventory stays held as long as any company may still approve.
    await client.query(
      `update seat_allocations set expires_at = $2 where hold_batch_id = $1 and status = 'HELD'`,
      [input.holdBatchId, new Date(Math.max(...deadlines.map((deadline) => deadline.getTime())))],
    );
    await setScopeStatus(client, input.scope, {
      status: 'REQUESTED',
      deadline: scopeDeadline(deadlines),
      channel: input.channel,
    });
    return currentOutcome(client, input.scope, 'REQUESTED');
  });
}

/** The database clock at the start of the transaction: every deadline is measured on it. */
async function transactionTime(client: PoolClient): Promise<Date> {
  const { rows } = await client.query<{ now: string }>(`select now() as now`);
  return instant(rows[0]!.now);
}

async function lockHeldSeats(client: PoolClient, holdBatchId: string): Promise<HeldSeat[]> {
  const { rows } = await client.query<HeldSeat>(
    `select a.id as allocation_id, a.owner_id as journey_id, l.sequence as leg_sequence, a.trip_id, l.company_id, l.subtotal,
            a.seat_id, coalesce(ls.seat_number, a.seat_id) as seat_number, coalesce(ls.deck, 1) as deck
     from seat_allocations a
     join journey_legs l on l.journey_id = a.owner_id and l.trip_id = a.trip_id
     join trips t on t.id = a.trip_id
     left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where a.hold_batch_id = $1 and a.status = 'HELD'
     for update of a`,
    [holdBatchId],
  );
  return rows;
}

interface TicketRow {
  journeyId: string;
  legSequence: number;
  travellerIndex: number;
  name: string;
  phone: string | null;
  tripId: string;
  companyId: string;
  seatId: string;
  seatNumber: string;
}

/** One ticket per traveller and leg: traveller i of a journey sits in the i-th held seat of each leg. */
function ticketsFor(journeys: JourneyRow[], seats: HeldSeat[], input: ConfirmInput['journeys']): TicketRow[] {
  const tickets: TicketRow[] = [];
  for (const journey of journeys) {
    const travellers = input.find((entry) => entry.journeyId === journey.id)?.travellers ?? [];
    if (travellers.length !== journey.party_size) {
      throw new JourneyRefusal(
        400,
        'TRAVELLERS_DO_NOT_MATCH_PARTY',
        `Send ${journey.party_size} travellers for this journey`,
        {
          journey_id: journey.id,
        },
      );
    }
    const legs = [
      ...new Set(seats.filter((seat) => seat.journey_id === journey.id).map((seat) => seat.leg_sequence)),
    ];
    for (const leg of legs) {
      const legSeats = seats
        .filter((seat) => seat.journey_id === journey.id && seat.leg_sequence === leg)
        .map((seat) => ({ ...seat, seatNumber: seat.seat_number }));
      const pairs = seatTravellers(legSeats, travellers);
      if (!pairs)
        throw new JourneyRefusal(
          409,
          'HOLD_EXPIRED',
          'Some held seats are no longer held; hold the journey again',
        );
      for (const { seat, traveller, index } of pairs) {
        tickets.push({
          journeyId: journey.id,
          legSequence: leg,
          travellerIndex: index,
          name: traveller.name,
          phone: traveller.phone ?? null,
          tripId: seat.trip_id,
          companyId: seat.company_id,
          seatId: seat.seat_id,
          seatNumber: seat.seat_number,
        });
      }
    }
  }
  return tickets;
}

async function insertTickets(client: PoolClient, tickets: TicketRow[]): Promise<void> {
  await client.query(
    `insert into journey_tickets (journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id, company_id,
                                  seat_id, seat_number)
     select * from jsonb_to_recordset($1::jsonb) as t(journey_id uuid, leg_sequence int, traveller_index int, traveller_name text,
                                                     traveller_phone text, trip_id uuid, company_id uuid, seat_id text, seat_number text)
     on conflict (journey_id, leg_sequence, traveller_index) where status <> 'REISSUED' do nothing`,
    [
      JSON.stringify(
        tickets.map((ticket) => ({
          journey_id: ticket.journeyId,
          leg_sequence: ticket.legSequence,
          traveller_index: ticket.travellerIndex,
          traveller_name: ticket.name,
          traveller_phone: ticket.phone,
          trip_id: ticket.tripId,
          company_id: ticket.companyId,
          seat_id: ticket.seatId,
          seat_number: ticket.seatNumber,
        })),
      ),
    ],
  );
}

async function confirmationSettings(
  client: PoolClient,
  companyIds: string[],
): Promise<CompanyConfirmationSettings[]> {
  const { rows } = await client.query<{
    company_id: string;
    mode: ConfirmationMode | null;
    decision_window_minutes: number | null;
    channels: BookingChannel[] | null;
  }>(
    `select c.id as company_id, s.mode, s.decision_window_minutes, s.channels
     from unnest($1::uuid[]) as c(id) left join company_booking_settings s on s.company_id = c.id`,
    [companyIds],
  );
  return rows.map((row) => ({
    companyId: row.company_id,
    mode: row.mode,
    decisionWindowMinutes: row.decision_window_minutes ?? 15,
    channels: row.channels ?? [],
  }));
}

/** A short code people can read out at a counter: BK- and 8 characters without look-alikes. */
function bookingCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return `BK-${[...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** The compatibility booking rows: one per journey, company and trip (a leg), named after the lead traveller. */
async function insertBookings(
  client: PoolClient,
  journeyIds: string[],
  seats: HeldSeat[],
  input: ConfirmInput,
  status: 'CONFIRMED' | 'PENDING_CONFIRMATION',
): Promise<void> {
  const rows = [];
  for (const journeyId of journeyIds) {
    const lead = input.journeys.find((entry) => entry.journeyId === journeyId)!.travellers[0]!;
    const legs = new Map<number, HeldSeat[]>();
    for (const seat of seats.filter((held) => held.journey_id === journeyId)) {
      legs.set(seat.leg_sequence, [...(legs.get(seat.leg_sequence) ?? []), seat]);
    }
    for (const legSeats of legs.values()) {
      const first = legSeats[0]!;
      rows.push({
        booking_code: bookingCode(),
        journey_id: journeyId,
        company_id: first.company_id,
        trip_id: first.trip_id,
        passenger_name: lead.name,
        passenger_phone: lead.phone ?? null,
        seats_count: legSeats.length,
        seat_numbers: legSeats.map((seat) => seat.seat_number),
        total_price: Number(first.subtotal),
      });
    }
  }
  await client.query(
    `insert into bookings (booking_code, journey_id, company_id, trip_id, passenger_id, owner_user_id, passenger_name, passenger_phone,
                           seats_count, seat_numbers, status, total_price, currency, channel)
     select b.booking_code, b.journey_id, b.company_id, b.trip_id, j.passenger_id, j.owner_user_id, b.passenger_name,
            coalesce(b.passenger_phone, u.phone, ''), b.seats_count, b.seat_numbers, $2, b.total_price, j.currency, $3
     from jsonb_to_recordset($1::jsonb) as b(booking_code text, journey_id uuid, company_id uuid, trip_id uuid, passenger_name text,
                                           passenger_phone text, seats_count int, seat_numbers text[], total_price bigint)
     join journeys j on j.id = b.journey_id
     left join users u on u.id = j.owner_user_id
     on conflict (journey_id, company_id, trip_id) do nothing`,
    [JSON.stringify(rows), status, input.channel],
  );
}

/**
 * Every company agreed (or none had to): allocations CONFIRMED for good, tickets signed with the
 * active key and boarding_authorized, booking rows and the scope CONFIRMED. Runs inside the
 * caller's transaction. A held seat lost meanwhile (its hold swept after expiry) refuses.
 */
async function finalizeConfirmed(
  client: PoolClient,
  scope: ConfirmationScope,
  journeyIds: string[],
  signing: SigningOptions,
  channel?: BookingChannel,
): Promise<void> {
  const { rowCount } = await client.query(
    `update seat_allocations set status = 'CONFIRMED', expires_at = null
     where owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status = 'HELD'`,
    [journeyIds],
  );
  const { rows } = await client.query<{ expected: number }>(
    `select count(*)::int as expected from journey_tickets where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  if ((rowCount ?? 0) !== rows[0]!.expected) {
    throw new JourneyRefusal(
      409,
      'HOLD_EXPIRED',
      'Some held seats are no longer held; hold the journey again',
    );
  }
  await signTicketsOf(client, scope, signing);
  await client.query(
    `update bookings set status = 'CONFIRMED', updated_at = now() where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  await setScopeStatus(client, scope, {
    status: 'CONFIRMED',
    deadline: null,
    ...(channel ? { channel } : {}),
  });
}

/**
 * The whole scope ends unconfirmed: seats released, requests still pending CANCELLED, tickets and
 * booking rows CANCELLED, the scope CANCELLED with its failure_reason. Runs inside the caller's
 * transaction.
 */
async function cancelScope(
  client: PoolClient,
  scope: ConfirmationScope,
  journeyIds: string[],
  failureReason: string,
): Promise<void> {
  await client.query(
    `update seat_allocations set status = 'RELEASED', released_at = now()
     where owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status in ('HELD', 'CONFIRMED')`,
    [journeyIds],
  );
  await client.query(
    `update confirmation_requests set status = 'CANCELLED' where scope_kind = $1 and scope_id = $2 and status = 'PENDING'`,
    [scope.kind, scope.id],
  );
  await client.query(
    `update journey_tickets set status = 'CANCELLED', boarding_authorized = false where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  await client.query(
    `update bookings set status = 'CANCELLED', updated_at = now() where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  await setScopeStatus(client, scope, { status: 'CANCELLED', failureReason });
}

async function currentOutcome(
  client: PoolClient,
  scope: ConfirmationScope,
  status: 'REQUESTED' | 'CONFIRMED',
): Promise<ConfirmOutcome> {
  if (status === 'CONFIRMED') return { status, deadline: null, awaiting: [] };
  const awaiting = await awaitedDecisions(client, scope);
  const { rows } = await client.query<{ deadline: string | null }>(
    `select min(deadline) as deadline from confirmation_requests where scope_kind = $1 and scope_id = $2 and status = 'PENDING'`,
    [scope.kind, scope.id],
  );
  return { status, deadline: rows[0]?.deadline ? instant(rows[0].deadline).toISOString() : null, awaiting };
}

async function awaitedDecisions(client: Queryable, scope: ConfirmationScope): Promise<AwaitedDecision[]> {
  const { rows } = await client.query<{ company_id: string; remaining: number }>(
    `select company_id, greatest(0, extract(epoch from deadline - now()) * 1000)::float8 as remaining
     from confirmation_requests where scope_kind = $1 and scope_id = $2 and status = 'PENDING' order by company_id`,
    [scope.kind, scope.id],
  );
  return rows.map((row) => ({
    companyId: row.company_id,
    remainingMilliseconds: Math.ceil(Number(row.remaining)),
  }));
}

// ---------------------------------------------------------------------------------------------
// Company decisions and their deadline
// ---------------------------------------------------------------------------------------------

export interface DecisionInput {
  scope: ConfirmationScope;
  companyId: string;
  decision: 'APPROVE' | 'REJECT';
  actorId: string;
  reason?: string | undefined;
  decisionKey: string;
}

export interface DecisionOutcome {
  outcome: 'REQUESTED' | 'CONFIRMED' | 'CANCELLED';
  /** Companies still to decide (empty unless REQUESTED). */
  pendingCompanyIds: string[];
}

/**
 * A company approves or rejects its request, in one transaction. The request must be PENDING and
 * its deadline not passed, else 409 JOURNEY_CONFIRMATION_STATE_CONFLICT; the same decision key
 * again (a retry) answers the scope's current outcome. The last approval confirms the whole
 * scope; a rejection cancels it with failure_reason COMPANY_REJECTED.
 */
export async function recordDecision(
  db: Database,
  input: DecisionInput,
  signing: SigningOptions = {},
): Promise<DecisionOutcome> {
  return db.transaction(async (client) => {
    const locked = await lockScope(client, input.scope);
    const { rows } = await client.query<{
      id: string;
      status: string;
      decision_key: string | null;
      open: boolean;
    }>(
      `select id, status, decision_key, deadline > now() as open from confirmation_requests
       where scope_kind = $1 and scope_id = $2 and company_id = $3 for update`,
      [input.scope.kind, input.scope.id, input.companyId],
    );
    const request = rows[0];
    if (request && request.decision_key === input.decisionKey)
      return outcomeOf(client, input.scope, locked.status);
    if (!request || request.status !== 'PENDING' || !request.open || locked.status !== 'REQUESTED') {
      throw new JourneyRefusal(
        409,
        'JOURNEY_CONFIRMATION_STATE_CONFLICT',
        'There is no open confirmation request for this company',
      );
    }
    await client.query(
      `update confirmation_requests set status = $2, decided_by = $3, decided_at = now(), decision_key = $4, reason = $5 where id = $1`,
      [
        request.id,
        input.decision === 'APPROVE' ? 'APPROVED' : 'REJECTED',
        input.actorId,
        input.decisionKey,
        input.reason ?? null,
      ],
    );
    if (input.decision === 'REJECT') {
      await cancelScope(client, input.scope, locked.journeyIds, FAILURE_REASONS.companyRejected);
      return { outcome: 'CANCELLED' as const, pendingCompanyIds: [] };
    }
    const waiting = await currentOutcome(client, input.scope, 'REQUESTED');
    if (waiting.awaiting.length) {
      // The traveller's deadline is now the earliest one of the companies still deciding.
      await setScopeStatus(client, input.scope, {
        status: 'REQUESTED',
        deadline: waiting.deadline ? new Date(waiting.deadline) : null,
      });
      return {
        outcome: 'REQUESTED' as const,
        pendingCompanyIds: waiting.awaiting.map((entry) => entry.companyId),
      };
    }
    await finalizeConfirmed(client, input.scope, locked.journeyIds, signing);
    return { outcome: 'CONFIRMED' as const, pendingCompanyIds: [] };
  });
}

async function outcomeOf(
  client: PoolClient,
  scope: ConfirmationScope,
  status: JourneyStatus,
): Promise<DecisionOutcome> {
  if (status === 'CONFIRMED' || status === 'CANCELLED') return { outcome: status, pendingCompanyIds: [] };
  const pending = await awaitedDecisions(client, scope);
  return { outcome: 'REQUESTED', pendingCompanyIds: pending.map((entry) => entry.companyId) };
}

/**
 * A decision deadline passed with the scope still REQUESTED: the requests still pending EXPIRE
 * and the whole scope is cancelled with failure_reason DECISION_DEADLINE_PASSED. Answers the
 * scope's status; a scope already decided is left as it is.
 */
export async function expireDecisions(
  db: Database,
  input: { scope: ConfirmationScope },
): Promise<{ status: JourneyStatus }> {
  return db.transaction(async (client) => {
    const locked = await lockScope(client, input.scope);
    if (locked.status !== 'REQUESTED') return { status: locked.status };
    await client.query(
      `update confirmation_requests set status = 'EXPIRED' where scope_kind = $1 and scope_id = $2 and status = 'PENDING'`,
      [input.scope.kind, input.scope.id],
    );
    await cancelScope(client, input.scope, locked.journeyIds, FAILURE_REASONS.deadlinePassed);
    return { status: 'CANCELLED' as const };
  });
}
