import {
  bookingStatusOf,
  type ConfirmationScope,
  type HoldBatchState,
  type HoldBatchStatus,
  type JourneyStatus,
} from '../../domain/journey-confirmation.js';
import type { Database } from '../orm.js';
import { expectedDepartureSql } from './leg-boarding.js';
import { namedRefOf, type NamedRefColumns } from './named-ref.js';
import { iso, isoOrNull } from '../row-fields.js';
import {
  credentialStateJoins,
  credentialStateSql,
  shownCredential,
  type CredentialState,
} from './shown-credential.js';

/**
 * Reads of journeys and journey orders: who owns a scope and what it holds (the API's checks
 * before it talks to the workflow), and the confirmation projection (SPEC "Journey confirmation
 * projection") that GET /journeys/{bookingId}, GET /journey-orders/{orderId}, hold and confirm
 * answer with, the same for every channel.
 */

/**
 * A confirmation request (alias `request`) still PENDING whose decision deadline has passed (the
 * database's clock: its transaction's start, or `at`, an SQL timestamptz expression such as a
 * writer's write time). Its scope closed at that deadline (it closes at its earliest pending one),
 * whether or not a worker has released it yet: no company decides in it any more, none of its
 * requests awaits anyone, and whoever comes first releases it (DECISION_DEADLINE_PASSED).
 */
export const overdueRequestSql = (request: string, at = 'now()') =>
  `${request}.status = 'PENDING' and ${request}.deadline <= ${at}`;

/**
 * The confirmation scope of journey `j` (an SQL alias), as SQL expressions: its order when it is in
 * one, else the journey itself (what a confirmation request's scope_kind and scope_id name).
 */
export const journeyScopeSql = (j: string) => ({
  kind: `(case when ${j}.order_id is null then 'JOURNEY' else 'ORDER' end)`,
  id: `coalesce(${j}.order_id, ${j}.id)`,
});

/**
 * Whether the scope (`kind`, `id`: SQL expressions of its scope_kind and scope_id) has an overdue
 * request (overdueRequestSql, as of `at`): closed, though perhaps still written REQUESTED. The one
 * notion of a closed scope for its release (db/writes/journeys/deadline.ts), its decisions (judged at
 * the decision's write time) and the trip's readiness (./trip-dispatch.ts).
 */
export const overdueScopeSql = (kind: string, id: string, at = 'now()') =>
  `exists (select 1 from confirmation_requests overdue where overdue.scope_kind = ${kind}
           and overdue.scope_id = ${id} and ${overdueRequestSql('overdue', at)})`;

/**
 * Whether row `row` (an SQL alias of a bookings or journey_tickets row) is PENDING_CONFIRMATION in a
 * journey whose scope is closed at a decision deadline (overdueScopeSql): over, though perhaps still
 * written so. Its seat is free from that deadline, so it no longer counts as a traveller of its trip
 * (./trip-manifest.ts), a booking that fixes the trip (./planning.ts tripHasBookingsSql), a seat
 * label in use or a place of the unpaid cap (db/writes/inventory-caps.ts).
 */
export const overdueRequestRowSql = (row: string) =>
  `(${row}.status = 'PENDING_CONFIRMATION' and exists (
     select 1 from journeys sj where sj.id = ${row}.journey_id
       and ${overdueScopeSql(journeyScopeSql('sj').kind, journeyScopeSql('sj').id)}))`;

/** timestamptz arrives as PostgreSQL text from the pool (db/orm.ts); answers carry ISO 8601 UTC (`iso`). */
const epochSeconds = (timestamp: string) => Math.floor(new Date(timestamp).getTime() / 1000);

export interface ScopeJourney {
  id: string;
  quote_id: string;
  order_id: string | null;
  party_size: number;
  status: JourneyStatus;
}

/** The columns the projection reads from the scope's own row (a journey or an order). */
interface ScopeHeadRow {
  status: JourneyStatus;
  failure_reason: string | null;
  confirmation_deadline: string | null;
  total_price: string;
  currency: string;
}

const HEAD_COLUMNS = 'status, failure_reason, confirmation_deadline, total_price, currency';

export interface OwnedScope {
  scope: ConfirmationScope;
  status: JourneyStatus;
  journeys: ScopeJourney[];
  /** The owner account's phone: null until an identity-provider account completes it. */
  ownerPhone: string | null;
}

/** The scope when it exists and belongs to `userId`; null otherwise (the caller answers 404 either way). */
export async function findOwnedScope(
  db: Pick<Database, 'query'>,
  scope: ConfirmationScope,
  userId: string,
): Promise<OwnedScope | null> {
  if (scope.kind === 'ORDER') {
    const [order] = await db.query<{ status: JourneyStatus; owner_phone: string | null }>(
      `select o.status, u.phone as owner_phone
       from journey_orders o left join users u on u.id = o.owner_user_id
       where o.id = $1 and o.owner_user_id = $2`,
      [scope.id, userId],
    );
    if (!order) return null;
    const journeys = await db.query<ScopeJourney>(
      `select id, quote_id, order_id, party_size, status from journeys where order_id = $1 order by id`,
      [scope.id],
    );
    return { scope, status: order.status, journeys, ownerPhone: order.owner_phone };
  }
  const [row] = await db.query<ScopeJourney & { owner_phone: string | null }>(
    `select j.id, j.quote_id, j.order_id, j.party_size, j.status, u.phone as owner_phone
     from journeys j left join users u on u.id = j.owner_user_id
     where j.id = $1 and j.owner_user_id = $2`,
    [scope.id, userId],
  );
  if (!row) return null;
  const { owner_phone: ownerPhone, ...journey } = row;
  return { scope, status: journey.status, journeys: [journey], ownerPhone };
}

/** A hold batch as the API's checks read it. */
export interface HoldBatch extends HoldBatchState {
  id: string;
}

interface HoldBatchRow {
  id: string;
  scope_kind: 'JOURNEY' | 'ORDER' | 'SEAT_LOCK';
  scope_id: string;
  status: HoldBatchStatus;
  /** Not yet past expires_at. */
  live: boolean;
}

const toHoldBatch = (row: HoldBatchRow): HoldBatch => ({
  id: row.id,
  scopeKind: row.scope_kind,
  scopeId: row.scope_id,
  status: row.status,
  live: row.live,
});

export async function findHoldBatch(
  db: Pick<Database, 'query'>,
  holdBatchId: string,
): Promise<HoldBatch | null> {
  const [row] = await db.query<HoldBatchRow>(
    `select id, scope_kind, scope_id, status, expires_at > now() as live from hold_batches where id = $1`,
    [holdBatchId],
  );
  return row ? toHoldBatch(row) : null;
}

interface RequestRow {
  company_id: string;
  status: string;
  deadline: string;
}

interface LatestHoldRow {
  id: string;
  status: HoldBatchStatus;
  expires_at: string;
}

/** A ticket as the projection reads it: its columns as stored (payload is jsonb) and credentialStateSql's. */
interface TicketRow extends CredentialState {
  id: string;
  journey_id: string;
  leg_sequence: number;
  traveller_name: string;
  seat_number: string;
  trip_id: string;
  company_id: string;
}

/** A ticket as the projection shows it: its credential as every traveller read shows it (shownCredential). */
const toTicket = (row: TicketRow) => ({
  id: row.id,
  journey_id: row.journey_id,
  leg_sequence: row.leg_sequence,
  traveller_name: row.traveller_name,
  seat_number: row.seat_number,
  trip_id: row.trip_id,
  company_id: row.company_id,
  status: row.status,
  ...shownCredential(row),
});

/** The head of a scope: the journey's row, or the order's. */
const scopeTable = (scope: ConfirmationScope) => (scope.kind === 'ORDER' ? 'journey_orders' : 'journeys');

/** The scope's confirmation state: the decision deadline shows only while REQUESTED. */
const confirmationOf = (row: Pick<ScopeHeadRow, 'status' | 'confirmation_deadline'>) => ({
  status: row.status,
  deadline: row.status === 'REQUESTED' ? isoOrNull(row.confirmation_deadline) : null,
});

/** A leg as the projection's json gives it (numeric columns arrive as json numbers). */
type LegRow = NamedRefColumns<'company'> &
  LegStopColumns<'board'> &
  LegStopColumns<'alight'> & {
    journey_id: string;
    sequence: number;
    trip_id: string;
    unit_price: number;
    quantity: number;
    subtotal: number;
    delay_minutes: number;
    board_departure_at: string;
    board_expected_departure_at: string;
    alight_arrival_at: string;
    seat_numbers: string[];
  };

type LegStopColumns<P extends 'board' | 'alight'> = Record<
  `${P}_stop_call_id` | `${P}_stop_id` | `${P}_name_ar` | `${P}_name_en`,
  string
>;

function legStopOf<P extends 'board' | 'alight'>(row: LegStopColumns<P>, prefix: P) {
  return {
    stop_call_id: row[`${prefix}_stop_call_id`],
    stop_id: row[`${prefix}_stop_id`],
    name_ar: row[`${prefix}_name_ar`],
    name_en: row[`${prefix}_name_en`],
  };
}

function toLeg(row: LegRow) {
  return {
    journey_id: row.journey_id,
    sequence: row.sequence,
    trip_id: row.trip_id,
    company: namedRefOf(row, 'company'),
    delay_minutes: row.delay_minutes,
    board: {
      ...legStopOf(row, 'board'),
      departure_at: iso(row.board_departure_at),
      expected_departure_at: iso(row.board_expected_departure_at),
    },
    alight: { ...legStopOf(row, 'alight'), arrival_at: iso(row.alight_arrival_at) },
    unit_price: row.unit_price,
    quantity: row.quantity,
    subtotal: row.subtotal,
    seat_numbers: row.seat_numbers,
  };
}

/**
 * The legs of the head `s`'s journeys (`s.ids`), with their stops, company and seats. A seat with a
 * live ticket shows the label printed on it (a layout may rename a sold seat; the ticket keeps its
 * label), a held seat the active layout's label. Each leg shows the delay its trip's company
 * announced and, beside its boarding stop's planned departure, the departure announced from that
 * stop (expectedDepartureSql), as the booking and ticket reads do.
 */
const LEGS_SQL = `select l.journey_id, l.sequence, l.trip_id, l.company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
            l.unit_price, l.quantity, l.subtotal,
            bc.id as board_stop_call_id, bc.stop_id as board_stop_id, bs.name_ar as board_name_ar, bs.name_en as board_name_en,
            bc.departure_at as board_departure_at, lt.delay_minutes,
            ${expectedDepartureSql('lt', 'bc.departure_at')} as board_expected_departure_at,
            ac.id as alight_stop_call_id, ac.stop_id as alight_stop_id, als.name_ar as alight_name_ar, als.name_en as alight_name_en,
            ac.arrival_at as alight_arrival_at,
            coalesce((select array_agg(seat.label order by ls.deck, length(seat.label), seat.label)
                      from seat_allocations a
                      join trips t on t.id = a.trip_id
                      left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
                      left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
                      cross join lateral (select coalesce(
                        (select k.seat_number from journey_tickets k
                         where k.journey_id = l.journey_id and k.leg_sequence = l.sequence and k.seat_id = a.seat_id
                           and k.status in ('PENDING_CONFIRMATION', 'VALID', 'USED') limit 1),
                        ls.seat_number, a.seat_id) as label) seat
                      where a.owner_kind = 'JOURNEY' and a.owner_id = l.journey_id and a.trip_id = l.trip_id
                        and a.status in ('HELD', 'CONFIRMED')), '{}') as seat_numbers
     from journey_legs l
     join companies c on c.id = l.company_id
     join trips lt on lt.id = l.trip_id
     join trip_stop_calls bc on bc.id = l.board_stop_call_id join stops bs on bs.id = bc.stop_id
     join trip_stop_calls ac on ac.id = l.alight_stop_call_id join stops als on als.id = ac.stop_id
     where l.journey_id = any(s.ids)`;

/**
 * The scope's own row as the projection's head (`s`), with the scope that holds and decides it
 * (`owner_kind`, `owner_id`: a journey of an order is held and decided as part of the order) and
 * its journeys' ids.
 */
const projectionHead = (scope: ConfirmationScope) =>
  scope.kind === 'ORDER'
    ? `select ${HEAD_COLUMNS}, 'ORDER'::text as owner_kind, id as owner_id,
              array(select j.id from journeys j where j.order_id = o.id) as ids
       from journey_orders o where id = $1 and owner_user_id = $2`
    : `select ${HEAD_COLUMNS}, case when order_id is null then 'JOURNEY' else 'ORDER' end as owner_kind,
              coalesce(order_id, id) as owner_id, array[id] as ids
       from journeys where id = $1 and owner_user_id = $2`;

/**
 * The whole projection in ONE statement (a round trip, not five): the head's columns, and the
 * journeys, requests, latest hold, tickets and legs each as json. Hold and confirm answer with it
 * inside their transactions, so each statement saved there is saved on every journey.
 */
const projectionSql = (scope: ConfirmationScope) => `with s as (${projectionHead(scope)})
  select s.status, s.failure_reason, s.confirmation_deadline, s.total_price, s.currency,
    (select json_agg(json_build_object('id', j.id, 'party_size', j.party_size, 'status', j.status) order by j.id)
     from journeys j where j.id = any(s.ids)) as journeys,
    coalesce((select json_agg(json_build_object('company_id', r.company_id, 'status', r.status, 'deadline', r.deadline)
                              order by r.company_id)
              from confirmation_requests r where r.scope_kind = s.owner_kind and r.scope_id = s.owner_id), '[]') as requests,
    (select json_build_object('id', h.id, 'status', h.status, 'expires_at', h.expires_at) from hold_batches h
     where h.scope_kind = s.owner_kind and h.scope_id = s.owner_id order by h.created_at desc limit 1) as hold,
    coalesce((select json_agg(json_build_object('id', t.id, 'journey_id', t.journey_id, 'leg_sequence', t.leg_sequence,
                                                'traveller_name', t.traveller_name, 'seat_number', t.seat_number,
                                                'trip_id', t.trip_id, 'company_id', t.company_id, 'status', t.status,
                                                'payload', t.payload, 'signature', t.signature, 'key_id', t.key_id,
                                                'boarding_authorized', t.boarding_authorized,
                                                'revoked', ${credentialStateSql.revoked},
                                                'leg_boards', ${credentialStateSql.legBoards})
                              order by t.journey_id, t.leg_sequence, t.traveller_index)
              from journey_tickets t ${credentialStateJoins('t')}
              where t.journey_id = any(s.ids)), '[]') as tickets,
    coalesce((select json_agg(row_to_json(l) order by l.journey_id, l.sequence) from (${LEGS_SQL}) l), '[]') as legs
  from s`;

interface ProjectionRow extends ScopeHeadRow {
  journeys: Pick<ScopeJourney, 'id' | 'party_size' | 'status'>[];
  requests: RequestRow[];
  hold: LatestHoldRow | null;
  tickets: TicketRow[];
  legs: LegRow[];
}

/** The journey's (or order's) confirmation projection for its owner; null for anyone else. */
export async function readConfirmationProjection(
  db: Pick<Database, 'query'>,
  scope: ConfirmationScope,
  userId: string,
) {
  const [row] = await db.query<ProjectionRow>(projectionSql(scope), [scope.id, userId]);
  if (!row) return null;
  return {
    ...(scope.kind === 'ORDER' ? { orderId: scope.id } : { bookingId: scope.id }),
    confirmation: {
      ...confirmationOf(row),
      requests: row.requests.map((request) => ({
        company_id: request.company_id,
        status: request.status,
        deadline: iso(request.deadline),
      })),
    },
    failure_reason: row.failure_reason,
    booking: { status: bookingStatusOf(row.status) },
    hold: row.hold
      ? { holdBatchId: row.hold.id, status: row.hold.status, expiresAt: epochSeconds(row.hold.expires_at) }
      : null,
    tickets: row.tickets.map(toTicket),
    legs: row.legs.map(toLeg),
    journeys: row.journeys.map((journey) => ({
      bookingId: journey.id,
      party_size: journey.party_size,
      status: journey.status,
    })),
    total_price: Number(row.total_price),
    currency: row.currency,
  };
}

export type ConfirmationProjection = NonNullable<Awaited<ReturnType<typeof readConfirmationProjection>>>;

export interface CompanyBookingRow {
  id: string;
  company_id: string;
  journey_id: string | null;
  order_id: string | null;
  status: string;
  journey_status: JourneyStatus | null;
}

/** A compatibility booking row with the journey it belongs to (PATCH /bookings/{id}/status). */
export async function findCompanyBooking(db: Database, bookingId: string): Promise<CompanyBookingRow | null> {
  const [row] = await db.query<CompanyBookingRow>(
    `select b.id, b.company_id, b.journey_id, j.order_id, b.status, j.status as journey_status
     from bookings b left join journeys j on j.id = b.journey_id where b.id = $1`,
    [bookingId],
  );
  return row ?? null;
}

/** The scope's confirmation state and the status of one of its booking rows: a decision's answer. */
export async function readScopeStateWithBooking(db: Database, scope: ConfirmationScope, bookingId: string) {
  const [row] = await db.query<
    Pick<ScopeHeadRow, 'status' | 'failure_reason' | 'confirmation_deadline'> & { booking_status: string }
  >(
    `select s.status, s.failure_reason, s.confirmation_deadline, b.status as booking_status
     from ${scopeTable(scope)} s, bookings b where s.id = $1 and b.id = $2`,
    [scope.id, bookingId],
  );
  return {
    confirmation: confirmationOf(row!),
    failure_reason: row!.failure_reason,
    bookingStatus: row!.booking_status,
  };
}

/** The scope a journey belongs to: its order when it has one, else itself. */
export function scopeOfJourney(journeyId: string, orderId: string | null): ConfirmationScope {
  return orderId ? { kind: 'ORDER', id: orderId } : { kind: 'JOURNEY', id: journeyId };
}
