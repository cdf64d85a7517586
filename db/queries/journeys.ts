import {
  bookingStatusOf,
  type ConfirmationScope,
  type JourneyStatus,
} from '../../domain/journey-confirmation.js';
import type { Database } from '../orm.js';

/**
 * Reads of journeys and journey orders: who owns a scope and what it holds (the API's checks
 * before it talks to the workflow), and the confirmation projection (SPEC "Journey confirmation
 * projection") that GET /journeys/{bookingId}, GET /journey-orders/{orderId}, hold and confirm
 * answer with, the same for every channel.
 */

const iso = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string | Date).toISOString();
const json = (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value);

export interface ScopeJourney {
  id: string;
  quote_id: string;
  order_id: string | null;
  party_size: number;
  status: JourneyStatus;
}

export interface OwnedScope {
  scope: ConfirmationScope;
  status: JourneyStatus;
  journeys: ScopeJourney[];
}

/** The scope when it exists and belongs to `userId`; null otherwise (the caller answers 404 either way). */
export async function findOwnedScope(
  db: Database,
  scope: ConfirmationScope,
  userId: string,
): Promise<OwnedScope | null> {
  if (scope.kind === 'ORDER') {
    const [order] = await db.query<{ status: JourneyStatus }>(
      `select status from journey_orders where id = $1 and owner_user_id = $2`,
      [scope.id, userId],
    );
    if (!order) return null;
    const journeys = await db.query<ScopeJourney>(
      `select id, quote_id, order_id, party_size, status from journeys where order_id = $1 order by id`,
      [scope.id],
    );
    return { scope, status: order.status, journeys };
  }
  const journeys = await db.query<ScopeJourney>(
    `select id, quote_id, order_id, party_size, status from journeys where id = $1 and owner_user_id = $2`,
    [scope.id, userId],
  );
  return journeys[0] ? { scope, status: journeys[0].status, journeys } : null;
}

export interface HoldBatchRow {
  id: string;
  scope_kind: 'JOURNEY' | 'ORDER' | 'SEAT_LOCK';
  scope_id: string;
  status: 'ACTIVE' | 'CONSUMED' | 'RELEASED' | 'EXPIRED';
  /** Not yet past expires_at. */
  live: boolean;
}

export async function findHoldBatch(db: Database, holdBatchId: string): Promise<HoldBatchRow | null> {
  const [row] = await db.query<HoldBatchRow>(
    `select id, scope_kind, scope_id, status, expires_at > now() as live from hold_batches where id = $1`,
    [holdBatchId],
  );
  return row ?? null;
}

/** The journey's (or order's) confirmation projection for its owner; null for anyone else. */
export async function readConfirmationProjection(db: Database, scope: ConfirmationScope, userId: string) {
  const owned = await findOwnedScope(db, scope, userId);
  if (!owned) return null;
  const journeyIds = owned.journeys.map((journey) => journey.id);
  // A journey of an order is held and decided as part of the order.
  const orderId = scope.kind === 'JOURNEY' ? owned.journeys[0]!.order_id : null;
  const owningScope: ConfirmationScope = orderId ? { kind: 'ORDER', id: orderId } : scope;
  const [head] = await db.query<{
    status: JourneyStatus;
    failure_reason: string | null;
    confirmation_deadline: unknown;
    total_price: string;
    currency: string;
  }>(
    `select status, failure_reason, confirmation_deadline, total_price, currency from ${scope.kind === 'ORDER' ? 'journey_orders' : 'journeys'}
     where id = $1`,
    [scope.id],
  );
  const [requests, hold, tickets, legs] = await Promise.all([
    db.query<{ company_id: string; status: string; deadline: unknown }>(
      `select company_id, status, deadline from confirmation_requests where scope_kind = $1 and scope_id = $2 order by company_id`,
      [owningScope.kind, owningScope.id],
    ),
    db.query<{ id: string; status: string; expires_at: unknown }>(
      `select id, status, expires_at from hold_batches where scope_kind = $1 and scope_id = $2 order by created_at desc limit 1`,
      [owningScope.kind, owningScope.id],
    ),
    db.query<Record<string, unknown>>(
      `select id, journey_id, leg_sequence, traveller_name, seat_number, trip_id, company_id, status, payload, signature, key_id,
              boarding_authorized
       from journey_tickets where journey_id = any($1::uuid[]) order by journey_id, leg_sequence, traveller_index`,
      [journeyIds],
    ),
    readLegs(db, journeyIds),
  ]);
  const status = head!.status;
  const [latestHold] = hold;
  return {
    ...(scope.kind === 'ORDER' ? { orderId: scope.id } : { bookingId: scope.id }),
    confirmation: {
      status,
      deadline: status === 'REQUESTED' ? iso(head!.confirmation_deadline) : null,
      requests: requests.map((request) => ({
        company_id: request.company_id,
        status: request.status,
        deadline: iso(request.deadline),
      })),
    },
    failure_reason: head!.failure_reason,
    booking: { status: bookingStatusOf(status) },
    hold: latestHold
      ? {
          holdBatchId: latestHold.id,
          status: latestHold.status,
          expiresAt: Math.floor(new Date(latestHold.expires_at as string).getTime() / 1000),
        }
      : null,
    tickets: tickets.map((ticket) => ({
      id: ticket.id as string,
      journey_id: ticket.journey_id as string,
      leg_sequence: ticket.leg_sequence as number,
      traveller_name: ticket.traveller_name as string,
      seat_number: ticket.seat_number as string,
      trip_id: ticket.trip_id as string,
      company_id: ticket.company_id as string,
      status: ticket.status as string,
      payload: ticket.payload === null ? null : json(ticket.payload),
      signature: ticket.signature as string | null,
      key_id: ticket.key_id as string | null,
      boarding_authorized: ticket.boarding_authorized as boolean,
    })),
    legs,
    journeys: owned.journeys.map((journey) => ({
      bookingId: journey.id,
      party_size: journey.party_size,
      status: journey.status,
    })),
    total_price: Number(head!.total_price),
    currency: head!.currency,
  };
}

export type ConfirmationProjection = NonNullable<Awaited<ReturnType<typeof readConfirmationProjection>>>;

async function readLegs(db: Database, journeyIds: string[]) {
  const rows = await db.query<Record<string, unknown>>(
    `select l.journey_id, l.sequence, l.trip_id, l.company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
            l.unit_price, l.quantity, l.subtotal,
            bc.id as board_stop_call_id, bc.stop_id as board_stop_id, bs.name_ar as board_name_ar, bs.name_en as board_name_en,
            bc.departure_at as board_departure_at,
            ac.id as alight_stop_call_id, ac.stop_id as alight_stop_id, als.name_ar as alight_name_ar, als.name_en as alight_name_en,
            ac.arrival_at as alight_arrival_at,
            coalesce((select array_agg(coalesce(ls.seat_number, a.seat_id) order by ls.deck, length(ls.seat_number), ls.seat_number)
                      from seat_allocations a
                      join trips t on t.id = a.trip_id
                      left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
                      left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
                      where a.owner_kind = 'JOURNEY' and a.owner_id = l.journey_id and a.trip_id = l.trip_id
                        and a.status in ('HELD', 'CONFIRMED')), '{}') as seat_numbers
     from journey_legs l
     join companies c on c.id = l.company_id
     join trip_stop_calls bc on bc.id = l.board_stop_call_id join stops bs on bs.id = bc.stop_id
     join trip_stop_calls ac on ac.id = l.alight_stop_call_id join stops als on als.id = ac.stop_id
     where l.journey_id = any($1::uuid[])
     order by l.journey_id, l.sequence`,
    [journeyIds],
  );
  return rows.map((row) => ({
    journey_id: row.journey_id as string,
    sequence: row.sequence as number,
    trip_id: row.trip_id as string,
    company: {
      id: row.company_id as string,
      name_ar: row.company_name_ar as string,
      name_en: row.company_name_en as string,
    },
    board: {
      stop_call_id: row.board_stop_call_id as string,
      stop_id: row.board_stop_id as string,
      name_ar: row.board_name_ar as string,
      name_en: row.board_name_en as string,
      departure_at: iso(row.board_departure_at)!,
    },
    alight: {
      stop_call_id: row.alight_stop_call_id as string,
      stop_id: row.alight_stop_id as string,
      name_ar: row.alight_name_ar as string,
      name_en: row.alight_name_en as string,
      arrival_at: iso(row.alight_arrival_at)!,
    },
    unit_price: Number(row.unit_price),
    quantity: row.quantity as number,
    subtotal: Number(row.subtotal),
    seat_numbers: row.seat_numbers as string[],
  }));
}

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

export interface ConfirmationRequestRow {
  id: string;
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';
  decision_key: string | null;
}

export async function findConfirmationRequest(
  db: Database,
  scope: ConfirmationScope,
  companyId: string,
): Promise<ConfirmationRequestRow | null> {
  const [row] = await db.query<ConfirmationRequestRow>(
    `select id, status, decision_key from confirmation_requests where scope_kind = $1 and scope_id = $2 and company_id = $3`,
    [scope.kind, scope.id, companyId],
  );
  return row ?? null;
}

/** The scope's state as a company decision leaves it (the PATCH answer). */
export async function readScopeState(db: Database, scope: ConfirmationScope) {
  const [row] = await db.query<{
    status: JourneyStatus;
    failure_reason: string | null;
    confirmation_deadline: unknown;
  }>(
    `select status, failure_reason, confirmation_deadline from ${scope.kind === 'ORDER' ? 'journey_orders' : 'journeys'} where id = $1`,
    [scope.id],
  );
  return {
    confirmation: {
      status: row!.status,
      deadline: row!.status === 'REQUESTED' ? iso(row!.confirmation_deadline) : null,
    },
    failure_reason: row!.failure_reason,
  };
}

/** The scope a journey belongs to: its order when it has one, else itself. */
export function scopeOfJourney(journeyId: string, orderId: string | null): ConfirmationScope {
  return orderId ? { kind: 'ORDER', id: orderId } : { kind: 'JOURNEY', id: journeyId };
}
