/**
 * Rules of journey confirmation (SPEC "Journey confirmation", "Company decision on a journey
 * request", "Journey confirmation projection") that need no database: which companies must
 * decide for a booking channel, when their decisions are due, which journey states allow a hold,
 * and how a journey's state reads in the projection every channel shares.
 */

export const BOOKING_CHANNELS = ['CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER'] as const;
export type BookingChannel = (typeof BOOKING_CHANNELS)[number];
export type ConfirmationMode = 'AUTO_CONFIRM' | 'MANUAL_CONFIRM';

export type ScopeKind = 'JOURNEY' | 'ORDER';

/** What one confirmation covers: a journey (its bookingId) or a journey order. */
export interface ConfirmationScope {
  kind: ScopeKind;
  /** The journey id (bookingId) or the journey order id. */
  id: string;
}

export interface TravellerInput {
  name: string;
  phone?: string;
}

/** The travellers of one journey of the scope, in seat order (one per party member). */
export interface JourneyTravellers {
  journeyId: string;
  travellers: TravellerInput[];
}

/** A journey's (or order's) lifecycle state as stored. */
export type JourneyStatus =
  'DRAFT' | 'HELD' | 'REQUESTED' | 'CONFIRMED' | 'CANCELLED' | 'RELEASED' | 'EXPIRED';

export interface CompanyConfirmationSettings {
  companyId: string;
  /** null: the company never saved settings, so it confirms automatically. */
  mode: ConfirmationMode | null;
  decisionWindowMinutes: number;
  channels: readonly BookingChannel[];
}

export interface RequiredDecision {
  companyId: string;
  decisionWindowMinutes: number;
}

/**
 * The companies that must approve a booking made through `channel`: those confirming manually
 * for that channel. A company without settings, in AUTO_CONFIRM, or whose manual mode does not
 * list the channel confirms automatically.
 */
export function companiesNeedingDecision(
  settings: readonly CompanyConfirmationSettings[],
  channel: BookingChannel,
): RequiredDecision[] {
  return settings
    .filter((company) => company.mode === 'MANUAL_CONFIRM' && company.channels.includes(channel))
    .map((company) => ({
      companyId: company.companyId,
      decisionWindowMinutes: company.decisionWindowMinutes,
    }))
    .sort((a, b) => a.companyId.localeCompare(b.companyId));
}

/** A configured duration in milliseconds after the (test-only) time scale. */
export function scaledMilliseconds(minutes: number, timeScale: number): number {
  return Math.max(1, Math.round(minutes * 60_000 * timeScale));
}

/** When a company's decision is due: now + decision window × time scale. */
export function decisionDeadline(now: Date, decisionWindowMinutes: number, timeScale: number): Date {
  return new Date(now.getTime() + scaledMilliseconds(decisionWindowMinutes, timeScale));
}

/**
 * The deadline a traveller sees for the whole scope: the earliest one still pending, since any
 * company letting its deadline pass cancels everything.
 */
export function scopeDeadline(pendingDeadlines: readonly Date[]): Date | null {
  if (pendingDeadlines.length === 0) return null;
  return new Date(Math.min(...pendingDeadlines.map((deadline) => deadline.getTime())));
}

/** States from which a new hold may start: never held, released, or expired. */
export const HOLDABLE_STATUSES: readonly JourneyStatus[] = ['DRAFT', 'RELEASED', 'EXPIRED'];

export function isHoldable(status: JourneyStatus): boolean {
  return HOLDABLE_STATUSES.includes(status);
}

export type HoldRefusalCode = 'HOLD_ALREADY_ACTIVE' | 'JOURNEY_NOT_HOLDABLE';

/**
 * Why a journey or order in `status` may not be held now, or null when it may: the one hold rule
 * that the draft, the hold transaction and the workflow's Update validator all apply.
 */
export function holdRefusal(
  status: JourneyStatus,
  what: 'journey' | 'order' = 'journey',
): { code: HoldRefusalCode; message: string } | null {
  if (status === 'HELD') {
    return { code: 'HOLD_ALREADY_ACTIVE', message: 'A hold is already active; release it or confirm' };
  }
  if (!isHoldable(status)) {
    return { code: 'JOURNEY_NOT_HOLDABLE', message: `The ${what} is ${status} and cannot be held again` };
  }
  return null;
}

/** The compatibility booking status (booking.status) a journey state reads as. */
export type BookingStatus =
  'DRAFT' | 'HELD' | 'PENDING_CONFIRMATION' | 'CONFIRMED' | 'CANCELLED' | 'RELEASED' | 'EXPIRED';

export function bookingStatusOf(status: JourneyStatus): BookingStatus {
  return status === 'REQUESTED' ? 'PENDING_CONFIRMATION' : status;
}

/** Failure reasons a cancelled scope carries. */
export const FAILURE_REASONS = {
  companyRejected: 'COMPANY_REJECTED',
  deadlinePassed: 'DECISION_DEADLINE_PASSED',
} as const;

/**
 * The fixed idempotency key of a company decision (PATCH /bookings/{id}/status): the same
 * request, company and decision always give the same key, so a retry is recognised.
 */
export function decisionKey(
  confirmationRequestId: string,
  companyId: string,
  decision: 'APPROVE' | 'REJECT',
): string {
  return `${confirmationRequestId}:${companyId}:${decision}`;
}

/**
 * Order of seats when the hold picks them itself: lower deck first, then the label in natural
 * order (2 before 10, A2 before A10).
 */
export function compareSeats(
  a: { deck: number; seatNumber: string },
  b: { deck: number; seatNumber: string },
): number {
  return a.deck - b.deck || a.seatNumber.localeCompare(b.seatNumber, 'en', { numeric: true });
}

/**
 * Pairs the travellers of a journey with the seats held for one leg: traveller i gets the i-th
 * seat in seat order. Refuses (null) when the counts differ.
 */
export function seatTravellers<Seat extends { deck: number; seatNumber: string }, Traveller>(
  seats: readonly Seat[],
  travellers: readonly Traveller[],
): { seat: Seat; traveller: Traveller; index: number }[] | null {
  if (seats.length !== travellers.length) return null;
  return [...seats].sort(compareSeats).map((seat, index) => ({ seat, traveller: travellers[index]!, index }));
}

/** A seat of the bus layout as the hold sees it on one leg's [board, alight) stretch. */
export interface LegSeat {
  seatId: string;
  seatNumber: string;
  deck: number;
  seatClass: 'STANDARD' | 'VIP';
  free: boolean;
}

/** A quoted resource of a leg: how many places of which kind, and the labels the traveller chose. */
export interface QuotedResource {
  resourceCode: 'SEAT' | 'VIP_SEAT';
  quantity: number;
  assignments: readonly string[];
}

export type SeatChoice = { seats: LegSeat[]; unavailable?: never } | { unavailable: string[]; seats?: never };

/**
 * The seats a hold takes on one leg: the labels chosen in the quote, then for the rest the lowest
 * free seats (seat order). A VIP_SEAT takes a VIP-class seat when the layout has any; a SEAT takes
 * a standard seat first and a VIP-class one only when no standard seat is left. Refuses with the
 * chosen labels that are taken (or an empty list when there are simply too few free seats).
 */
export function chooseSeats(layout: readonly LegSeat[], resources: readonly QuotedResource[]): SeatChoice {
  const byLabel = new Map(layout.map((seat) => [seat.seatNumber, seat]));
  const taken = new Set<string>();
  const chosen: LegSeat[] = [];
  const unavailable: string[] = [];
  for (const label of resources.flatMap((resource) => resource.assignments)) {
    const seat = byLabel.get(label);
    if (!seat || !seat.free || taken.has(seat.seatId)) unavailable.push(label);
    else {
      taken.add(seat.seatId);
      chosen.push(seat);
    }
  }
  if (unavailable.length) return { unavailable };

  const layoutHasVip = layout.some((seat) => seat.seatClass === 'VIP');
  const open = layout.filter((seat) => seat.free).sort(compareSeats);
  const take = (count: number, ...preference: ((seat: LegSeat) => boolean)[]): boolean => {
    for (const fits of preference) {
      for (const seat of open) {
        if (count === 0) return true;
        if (!taken.has(seat.seatId) && fits(seat)) {
          taken.add(seat.seatId);
          chosen.push(seat);
          count -= 1;
        }
      }
    }
    return count === 0;
  };
  const unassigned = (code: QuotedResource['resourceCode']) =>
    resources
      .filter((resource) => resource.resourceCode === code)
      .reduce((sum, resource) => sum + resource.quantity - resource.assignments.length, 0);
  const isVip = (seat: LegSeat) => seat.seatClass === 'VIP';
  const anySeat = () => true;
  const enough =
    take(unassigned('VIP_SEAT'), layoutHasVip ? isVip : anySeat) &&
    take(unassigned('SEAT'), (seat) => !isVip(seat), isVip);
  return enough ? { seats: chosen } : { unavailable: [] };
}
