import type { PoolClient } from 'pg';
import type { InventoryScope } from '../../../domain/inventory-scope.js';
import {
  holdRefusal,
  isHoldable,
  retriesLiveHold,
  type ConfirmationScope,
  type JourneyStatus,
} from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { isBookableStatus } from '../../queries/inventory.js';
import { findHoldBatch } from '../../queries/journeys.js';
import { companyScopeSql } from '../../queries/scope.js';
import type { QuoteResponse } from '../quote.js';
import { expireOverdueInLockedScope } from './expire-overdue.js';
import { journeyTransaction, JourneyRefusal, serialRows, type JourneyRow, type Queryable } from './scope.js';

/**
 * Drafts: the quote becomes a journey (journeys.id = journey_quotes.journey_id) before the hold
 * transaction (hold.ts) places the hold. A journey already HELD passes here: the hold answers a
 * retry of its hold or refuses.
 */

export interface DraftCaller {
  userId: string;
  scope: InventoryScope;
}

interface QuoteRow {
  id: string;
  journey_id: string;
  owner_user_id: string | null;
  scope: InventoryScope;
  party_size: number;
  response: QuoteResponse;
  total: string;
  currency: string;
  live: boolean;
}

function sameScope(a: InventoryScope, b: InventoryScope): boolean {
  return a.kind === b.kind && (a.kind !== 'DEMO' || (b.kind === 'DEMO' && a.companyId === b.companyId));
}

/**
 * The checks a quote must pass before anything is held for it: it is this journey's, the caller
 * may use it (a guest quote is claimed by the first signed-in hold), it has not expired (unless the
 * request retries a hold that still lasts: `retry`), and every trip is still bookable in the
 * caller's inventory scope (else 404 TRIP_NOT_FOUND, as for a trip that does not exist).
 */
async function checkQuote(
  q: Queryable,
  caller: DraftCaller,
  quote: QuoteRow | undefined,
  journeyId: string,
  retry: boolean,
): Promise<QuoteRow> {
  const details = { journey_id: journeyId };
  if (
    !quote ||
    quote.journey_id !== journeyId ||
    (quote.owner_user_id !== null && quote.owner_user_id !== caller.userId)
  ) {
    throw new JourneyRefusal(404, 'QUOTE_NOT_FOUND', 'No such quote for this journey', details);
  }
  if (!quote.live && !retry)
    throw new JourneyRefusal(409, 'QUOTE_EXPIRED', 'The quote has expired; quote the journey again', details);
  const legs = quote.response.legs;
  if (!sameScope(quote.scope, caller.scope))
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
  const response = quote.response;
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

/**
 * What a hold request names besides its journeys: `holdBatchId`, the batch a retry of a hold
 * with an idempotency key finds (absent without a key).
 */
export interface DraftRequest {
  holdBatchId?: string | undefined;
}

/**
 * Whether the request retries the scope's hold while it lasts: placeHold answers it with that
 * hold, so its quote may have expired meanwhile (a hold may outlive its quote).
 */
async function retriesLiveHoldOf(
  client: PoolClient,
  scope: ConfirmationScope,
  request: DraftRequest,
): Promise<boolean> {
  if (!request.holdBatchId) return false;
  return retriesLiveHold(await findHoldBatch(serialRows(client), request.holdBatchId), scope);
}

export interface DraftResult {
  scope: ConfirmationScope;
  companyIds: string[];
}

const companiesOf = (quotes: QuoteRow[]) =>
  [...new Set(quotes.flatMap((quote) => quote.response.legs.map((leg) => leg.company_id)))].sort();

/**
 * A draft may be written for a journey or order that may be held, or is HELD already (the hold
 * answers a retry of that hold or refuses it): the hold rule of the domain otherwise.
 */
function refuseUnholdable(status: JourneyStatus, what: 'journey' | 'order'): void {
  const refusal = holdRefusal(status, what);
  if (refusal && refusal.code !== 'HOLD_ALREADY_ACTIVE') {
    throw new JourneyRefusal(409, refusal.code, refusal.message);
  }
}

/**
 * POST /journeys/{bookingId}/hold, before the hold: checks the quote and writes the draft
 * journey (and its legs) when it is not there yet. Refuses a journey that belongs to an order or
 * is past holding; a journey already HELD passes (the hold answers a retry or refuses).
 */
export async function draftJourney(
  db: Database,
  caller: DraftCaller,
  input: { journeyId: string; quoteId: string } & DraftRequest,
): Promise<DraftResult> {
  const scope: ConfirmationScope = { kind: 'JOURNEY', id: input.journeyId };
  const quote = await journeyTransaction(db, async (client) => {
    const { rows } = await client.query<QuoteRow>(
      `select ${QUOTE_COLUMNS} from journey_quotes where id = $1`,
      [input.quoteId],
    );
    const retry = await retriesLiveHoldOf(client, scope, input);
    const checked = await checkQuote(client, caller, rows[0], input.journeyId, retry);
    const journey = await ensureJourney(client, caller, checked);
    if (journey.order_id) {
      throw new JourneyRefusal(
        409,
        'JOURNEY_IN_ORDER',
        'This journey belongs to a journey order; hold and confirm the order',
      );
    }
    refuseUnholdable(journey.status, 'journey');
    return checked;
  });
  return { scope, companyIds: companiesOf([quote]) };
}

/**
 * POST /journey-orders/{orderId}/hold, before the hold: the order id is chosen by the client
 * and bound to the caller on first use (another traveller gets 404); its journeys are fixed by the
 * first hold, and a later hold (after release or expiry) must name the same ones. Each journey is
 * checked like a single journey's hold and must not belong to another order or be held alone.
 */
export async function draftOrder(
  db: Database,
  caller: DraftCaller,
  input: { orderId: string; journeyIds: string[] } & DraftRequest,
): Promise<DraftResult> {
  const scope: ConfirmationScope = { kind: 'ORDER', id: input.orderId };
  const quotes = await journeyTransaction(db, async (client) => {
    const { rows } = await client.query<QuoteRow>(
      `select ${QUOTE_COLUMNS} from journey_quotes where journey_id = any($1::uuid[])`,
      [input.journeyIds],
    );
    const retry = await retriesLiveHoldOf(client, scope, input);
    const checked: QuoteRow[] = [];
    for (const journeyId of input.journeyIds) {
      checked.push(
        await checkQuote(
          client,
          caller,
          rows.find((row) => row.journey_id === journeyId),
          journeyId,
          retry,
        ),
      );
    }
    await bindOrder(client, caller, input, checked);
    return checked;
  });
  return { scope, companyIds: companiesOf(quotes) };
}

/**
 * The order row, inserted unless it exists, then locked. A refused first hold of the order in
 * flight may delete it between the two statements (unbindUnheldOrder): it is inserted again then.
 */
async function insertAndLockOrder(
  client: PoolClient,
  caller: DraftCaller,
  orderId: string,
  quotes: QuoteRow[],
): Promise<{ owner_user_id: string; status: JourneyStatus }> {
  for (let attempt = 1; ; attempt++) {
    await client.query(
      `insert into journey_orders (id, owner_user_id, passenger_id, total_price, currency)
         select $1, u.id, u.passenger_id, $3, $4 from users u where u.id = $2
         on conflict (id) do nothing`,
      [
        orderId,
        caller.userId,
        quotes.reduce((sum, quote) => sum + Number(quote.total), 0),
        quotes[0]!.currency,
      ],
    );
    const { rows } = await client.query<{ owner_user_id: string; status: JourneyStatus }>(
      `select owner_user_id, status from journey_orders where id = $1 for update`,
      [orderId],
    );
    if (rows[0]) return rows[0];
    if (attempt >= 3) throw new Error(`journey order ${orderId} vanished while it was drafted`);
  }
}

async function bindOrder(
  client: PoolClient,
  caller: DraftCaller,
  input: { orderId: string; journeyIds: string[] },
  quotes: QuoteRow[],
): Promise<void> {
  const order = await insertAndLockOrder(client, caller, input.orderId, quotes);
  if (order.owner_user_id !== caller.userId)
    throw new JourneyRefusal(404, 'ORDER_NOT_FOUND', 'No such journey order');
  refuseUnholdable(order.status, 'order');
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
    // A hold of its own that ran out with nobody to expire it yet is free: this writer expires it.
    if (!journey.order_id) journey.status = await expireOwnOverdueHold(client, journey);
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

/**
 * The journey's status once its own overdue hold, if any, is written EXPIRED (batch, seats,
 * journey), as the next hold of the journey would; the journey row is locked already, so this
 * keeps the journey's lock order (journey, batch, allocations).
 */
async function expireOwnOverdueHold(client: PoolClient, journey: JourneyRow): Promise<JourneyStatus> {
  const locked = { status: journey.status, journeys: [journey], journeyIds: [journey.id] };
  await expireOverdueInLockedScope(client, { kind: 'JOURNEY', id: journey.id }, locked);
  return locked.status;
}

/**
 * Undoes the binding the draft committed when the order's hold did not commit: while no hold of
 * the order was ever placed (no hold batch of any status), its journeys leave it and the order row
 * goes, so a refused first hold writes nothing that lasts (the journeys may be held alone or in
 * another order), and those of them never held on their own are deleted (deleteUnheldDrafts). Once
 * a hold was placed the journeys stay fixed. Locks as the draft does: the order, then its journeys
 * in id order.
 */
export async function unbindUnheldOrder(db: Database, orderId: string): Promise<void> {
  await journeyTransaction(db, async (client) => {
    const { rows: orders } = await client.query(`select id from journey_orders where id = $1 for update`, [
      orderId,
    ]);
    if (!orders[0]) return;
    // A statement of its own, so it sees a hold committed while this one waited for the order's lock.
    const { rows: batches } = await client.query(
      `select 1 from hold_batches where scope_kind = 'ORDER' and scope_id = $1 limit 1`,
      [orderId],
    );
    if (batches[0]) return;
    const { rows: journeys } = await client.query<{ id: string }>(
      `select id from journeys where order_id = $1 order by id for update`,
      [orderId],
    );
    await client.query(`update journeys set order_id = null, updated_at = now() where order_id = $1`, [
      orderId,
    ]);
    await client.query(`delete from journey_orders where id = $1`, [orderId]);
    await deleteUnheldDrafts(
      client,
      journeys.map((journey) => journey.id),
    );
  });
}

/**
 * Deletes the journeys (and, by cascade, their legs) that are still DRAFT, not in an order, and
 * were never held on their own (no hold batch of any status): the rows a draft wrote for a hold that
 * did not commit. Their quotes stay (journey_quotes), so the next hold drafts them again, and a
 * guest's quote is unclaimed again: only a hold claims it. The caller has locked the journeys.
 */
async function deleteUnheldDrafts(client: PoolClient, journeyIds: string[]): Promise<void> {
  await client.query(
    `delete from journeys j
     where j.id = any($1::uuid[]) and j.status = 'DRAFT' and j.order_id is null
       and not exists (select 1 from hold_batches b where b.scope_kind = 'JOURNEY' and b.scope_id = j.id)`,
    [journeyIds],
  );
}

/**
 * Undoes the draft of a journey whose hold did not commit: while the journey is DRAFT on its own and
 * was never held, its row goes (a refused first hold writes nothing that lasts, and a guest quote is
 * not claimed by an account that never held it). Locks the journey, as the hold does.
 */
export async function discardUnheldJourney(db: Database, journeyId: string): Promise<void> {
  await journeyTransaction(db, async (client) => {
    const { rows } = await client.query(`select id from journeys where id = $1 for update`, [journeyId]);
    if (!rows[0]) return;
    // A statement of its own, so it sees a hold committed while this one waited for the journey's lock.
    await deleteUnheldDrafts(client, [journeyId]);
  });
}
