import type { PoolClient } from 'pg';
import { newBookingCode } from '../../../domain/booking.js';
import {
  alreadyConfirmed,
  companiesNeedingDecision,
  decisionDeadline,
  partyRefusal,
  scopeDeadline,
  unusableHoldRefusal,
  type BookingChannel,
  type CompanyConfirmationSettings,
  type ConfirmationMode,
  type ConfirmationScope,
  type JourneyTravellers,
} from '../../../domain/journey-confirmation.js';
import type { TransferSettings } from '../../../domain/journey-search.js';
import { compareSeats, seatTravellers } from '../../../domain/journey-seats.js';
import type { AccountCaps } from '../../../domain/inventory-caps.js';
import type { Database } from '../../orm.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import type { SigningOptions } from '../boarding-credentials.js';
import { requireConfirmWithinCap } from '../inventory-caps.js';
import { withBookingEvents } from '../outbox.js';
import { writeTime } from '../write-time.js';
import { requireConnectedLegs } from './connections.js';
import {
  bookableLegs,
  currentOutcome,
  finalizeConfirmed,
  inTripLockedScope,
  seatsLost,
  type ConfirmOutcome,
  type ScopeLeg,
} from './outcome.js';
import { JourneyRefusal, lockBatch, setScopeStatus, type JourneyRow, type LockedScope } from './scope.js';

export interface ConfirmInput {
  scope: ConfirmationScope;
  holdBatchId: string;
  journeys: JourneyTravellers[];
  channel: BookingChannel;
  timeScale: number;
  /** The owner's abuse caps: the bookings the confirm writes count against UNPAID_BOOKINGS_MAX. */
  caps?: AccountCaps | undefined;
  /** The change-time rules (config TRANSFER_*) a connection must still meet. */
  transfer: TransferSettings;
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
 * manual → REQUESTED (allocations stay HELD until the earliest deadline, one confirmation request
 * per manual company due after its decision window, tickets PENDING_CONFIRMATION unsigned, booking
 * rows PENDING_CONFIRMATION). The batch is CONSUMED either way. A retry after commit answers the
 * same outcome with the time left. A leg whose trip can no longer be booked (departed, cancelled,
 * its company suspended) is 409 TRIP_NOT_BOOKABLE; a connection whose change can no longer be made
 * (a delay announced on its first leg since the quote or the hold), 409 LEGS_NO_LONGER_CONNECTED with
 * the hold left as it is; a leg without its party's seats still held, 409 HOLD_EXPIRED.
 */
export async function confirmScope(
  db: Database,
  input: ConfirmInput,
  signing: SigningOptions = {},
): Promise<ConfirmOutcome> {
  return inTripLockedScope(db, input.scope, (client, locked) =>
    confirmLocked(client, locked, input, signing),
  );
}

/** How the caller's transaction wants the confirm: see confirm-direct.ts. */
export interface ConfirmOptions {
  /** A hold already CONSUMED is 409 ALREADY_CONFIRMED instead of the outcome as it stands. */
  consumedIsRefused?: boolean;
  /** Runs in the transaction, before it commits, when the outcome is REQUESTED. */
  onRequested?: (outcome: ConfirmOutcome, companyIds: string[]) => Promise<void>;
}

/** The confirm inside a transaction that holds the scope lock (`locked`). */
export async function confirmLocked(
  client: PoolClient,
  locked: LockedScope,
  input: ConfirmInput,
  signing: SigningOptions,
  options: ConfirmOptions = {},
): Promise<ConfirmOutcome> {
  // Read once the trips and the scope are held (the writers a confirm waits for hold one of them):
  // the hold's end is judged at this instant (lockBatch) and everything the confirm writes is
  // stamped with it, so a confirm that waited past the hold's end is 409 HOLD_EXPIRED.
  const at = await writeTime(client);
  const batch = await lockBatch(client, input.scope, input.holdBatchId, at);
  if (batch.status === 'CONSUMED' && (locked.status === 'REQUESTED' || locked.status === 'CONFIRMED')) {
    if (options.consumedIsRefused) throw JourneyRefusal.of(alreadyConfirmed());
    return currentOutcome(client, input.scope, locked.status);
  }
  const unusable = unusableHoldRefusal(batch);
  if (unusable) throw JourneyRefusal.of(unusable);
  if (locked.status !== 'HELD')
    throw new JourneyRefusal(409, 'HOLD_CLOSED', `The journey is ${locked.status}`);
  if (input.caps) {
    await requireConfirmWithinCap(client, locked.journeys[0]!.owner_user_id, input.caps, locked.journeyIds);
  }

  const legs = await bookableLegs(client, locked.journeyIds);
  await requireConnectedLegs(client, legs, input.transfer);
  const seats = await lockHeldSeats(client, input.holdBatchId);
  const tickets = ticketsFor(locked.journeys, legs, seats, input.journeys);
  const companyIds = [...new Set(seats.map((seat) => seat.company_id))].sort();
  const decisions = companiesNeedingDecision(await bookableCompanies(client, companyIds), input.channel);

  await insertTicketsConsuming(client, tickets, input.holdBatchId, at);
  if (decisions.length === 0) {
    await insertBookings(client, locked.journeyIds, seats, input, 'CONFIRMED');
    // booking.confirmed follows from finalizeConfirmed.
    await finalizeConfirmed(client, input.scope, locked.journeyIds, signing, { at, channel: input.channel });
    return { status: 'CONFIRMED' as const, deadline: null, awaiting: [] };
  }
  await insertBookings(client, locked.journeyIds, seats, input, 'PENDING_CONFIRMATION');
  // Every deadline is measured from the confirm's write time.
  const now = new Date(at);
  const firstDeparture = new Date(Math.min(...legs.map((leg) => leg.departure_ms)));
  const deadlines = decisions.map((decision) =>
    decisionDeadline(now, decision.decisionWindowMinutes, input.timeScale, firstDeparture),
  );
  await client.query(
    `insert into confirmation_requests (scope_kind, scope_id, company_id, deadline)
       select $1, $2, d.company_id, d.deadline from unnest($3::uuid[], $4::timestamptz[]) as d(company_id, deadline)`,
    [input.scope.kind, input.scope.id, decisions.map((decision) => decision.companyId), deadlines],
  );
  // The seats are held until the earliest deadline, when the scope closes unless that company has
  // decided (an approval holds them on to the next one: decide.ts holdSeatsUntil). Past it they are
  // free to every availability read and seat writer, whether or not a worker has released the scope.
  await client.query(
    `update seat_allocations set expires_at = $2 where ${allocationsInIdOrder(`hold_batch_id = $1 and status = 'HELD'`)}`,
    [input.holdBatchId, scopeDeadline(deadlines)],
  );
  await setScopeStatus(client, input.scope, {
    status: 'REQUESTED',
    deadline: scopeDeadline(deadlines),
    channel: input.channel,
    at,
  });
  const outcome = await currentOutcome(client, input.scope, 'REQUESTED');
  await options.onRequested?.(outcome, companyIds);
  return outcome;
}

/**
 * The companies' confirmation settings, once each is known to take bookings. A suspended company
 * takes none: a hold placed before its suspension cannot be confirmed (409 TRIP_NOT_BOOKABLE; the
 * hold expires), nor can a request be confirmed by the last approval (decide.ts). The company rows
 * are share-locked in id order, so a suspension waits for a confirm or a last approval in flight
 * and sees the confirmation requests it raised or the scope it confirmed. A company without saved
 * settings confirms automatically (mode null) with the default window.
 */
export async function bookableCompanies(
  client: PoolClient,
  companyIds: string[],
): Promise<CompanyConfirmationSettings[]> {
  const { rows } = await client.query<SettingsRow & { status: string }>(
    `select c.id as company_id, c.status, s.mode, s.decision_window_minutes, s.channels
     from companies c left join company_booking_settings s on s.company_id = c.id
     where c.id = any($1::uuid[]) order by c.id for share of c`,
    [companyIds],
  );
  const suspended = rows.find((row) => row.status !== 'ACTIVE');
  if (suspended) {
    throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', "This trip's company no longer takes bookings", {
      company_id: suspended.company_id,
    });
  }
  return rows.map(toSettings);
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

/**
 * One ticket per traveller and leg: traveller i of a journey sits in the i-th held seat of each leg.
 * Every leg of the journey must still have its party's seats held: the hold was judged live at the
 * transaction's start, and another writer may have marked its seats EXPIRED since (409 HOLD_EXPIRED).
 */
function ticketsFor(
  journeys: JourneyRow[],
  legs: ScopeLeg[],
  seats: HeldSeat[],
  input: ConfirmInput['journeys'],
): TicketRow[] {
  const tickets: TicketRow[] = [];
  for (const journey of journeys) {
    const travellers = input.find((entry) => entry.journeyId === journey.id)?.travellers ?? [];
    const mismatch = partyRefusal({ id: journey.id, partySize: journey.party_size }, travellers);
    if (mismatch) throw JourneyRefusal.of(mismatch);
    const sequences = legs.filter((leg) => leg.journey_id === journey.id).map((leg) => leg.sequence);
    for (const leg of sequences) {
      const legSeats = seats
        .filter((seat) => seat.journey_id === journey.id && seat.leg_sequence === leg)
        .map((seat) => ({ ...seat, seatNumber: seat.seat_number }));
      const pairs = seatTravellers(legSeats, travellers);
      if (!pairs) throw seatsLost();
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

/** The tickets written and the hold batch CONSUMED at `at`, in one statement (one round trip). */
async function insertTicketsConsuming(
  client: PoolClient,
  tickets: TicketRow[],
  holdBatchId: string,
  at: string,
): Promise<void> {
  await client.query(
    `with consumed as (update hold_batches set status = 'CONSUMED', closed_at = $3::timestamptz where id = $2)
     insert into journey_tickets (journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id, company_id,
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
      holdBatchId,
      at,
    ],
  );
}

interface SettingsRow {
  company_id: string;
  mode: ConfirmationMode | null;
  decision_window_minutes: number | null;
  channels: BookingChannel[] | null;
}

const toSettings = (row: SettingsRow): CompanyConfirmationSettings => ({
  companyId: row.company_id,
  mode: row.mode,
  decisionWindowMinutes: row.decision_window_minutes ?? 15,
  channels: row.channels ?? [],
});

/**
 * The compatibility booking rows: one per journey, company and trip (a leg), named after the lead
 * traveller; booking.created for each, in the transaction. seat_numbers lists the leg's seats in
 * traveller order (the i-th traveller's seat i-th, as seatTravellers seats them and modify's
 * newSeatNumbers speaks), not in the order the held seats were read.
 */
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
        booking_code: newBookingCode(),
        journey_id: journeyId,
        company_id: first.company_id,
        trip_id: first.trip_id,
        passenger_name: lead.name,
        passenger_phone: lead.phone ?? null,
        seats_count: legSeats.length,
        seat_numbers: legSeats
          .map((seat) => ({ deck: seat.deck, seatNumber: seat.seat_number }))
          .sort(compareSeats)
          .map((seat) => seat.seatNumber),
        total_price: Number(first.subtotal),
      });
    }
  }
  // booking.created for each row written, in the same statement. The journeys are also found by
  // their ids ($4): PostgreSQL guesses a jsonb_to_recordset at 100 rows and, joining that many,
  // read the whole journeys table instead of its primary key.
  await client.query(
    withBookingEvents(
      `insert into bookings (booking_code, journey_id, company_id, trip_id, passenger_id, owner_user_id, passenger_name,
                             passenger_phone, seats_count, seat_numbers, status, total_price, currency, channel)
       select b.booking_code, b.journey_id, b.company_id, b.trip_id, j.passenger_id, j.owner_user_id, b.passenger_name,
              coalesce(b.passenger_phone, u.phone, ''), b.seats_count, b.seat_numbers, $2, b.total_price, j.currency, $3
       from jsonb_to_recordset($1::jsonb) as b(booking_code text, journey_id uuid, company_id uuid, trip_id uuid,
                                               passenger_name text, passenger_phone text, seats_count int,
                                               seat_numbers text[], total_price bigint)
       join journeys j on j.id = b.journey_id
       left join users u on u.id = j.owner_user_id
       where j.id = any($4::uuid[])
       on conflict (journey_id, company_id, trip_id) do nothing`,
      ['booking.created'],
    ),
    [JSON.stringify(rows), status, input.channel, journeyIds],
  );
}
