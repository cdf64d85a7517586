/**
 * Which seats a journey hold takes on each leg (SPEC "Journey holds and orders"), with no database:
 * the labels chosen in the quote, then the lowest free seats in seat order, each of the class it was
 * quoted at; and which traveller sits in which held seat.
 */
import { seatClassChangedSinceQuote } from './journey-quote.js';
import type { SeatClass } from './seat-layout.js';

/** Made once: `localeCompare` with options builds a collator at every call (1.5 % of the API's CPU in bench:journeys). */
const seatLabelOrder = new Intl.Collator('en', { numeric: true });

/**
 * Order of seats when the hold picks them itself: lower deck first, then the label in natural
 * order (2 before 10, A2 before A10).
 */
export function compareSeats(
  a: { deck: number; seatNumber: string },
  b: { deck: number; seatNumber: string },
): number {
  return a.deck - b.deck || seatLabelOrder.compare(a.seatNumber, b.seatNumber);
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
  /** The class the quote priced each assignment at; absent in a quote stored before it was recorded. */
  assignedClasses?: readonly SeatClass[] | undefined;
}

export type SeatChoice = { seats: LegSeat[]; unavailable?: never } | { unavailable: string[]; seats?: never };

/**
 * The seats a hold takes on one leg: the labels chosen in the quote, then for the rest the lowest
 * free seats (seat order). A VIP_SEAT takes only a VIP-class seat, even if the layout was replaced
 * since the quote (never a standard seat at the VIP fare); a SEAT takes a standard seat first, a VIP
 * one only when none is left. Refuses with the chosen labels taken, no longer VIP for a VIP_SEAT, or
 * of another class than the quote priced them at (or an empty list when there are simply too few
 * free seats).
 */
export function chooseSeats(layout: readonly LegSeat[], resources: readonly QuotedResource[]): SeatChoice {
  const byLabel = new Map(layout.map((seat) => [seat.seatNumber, seat]));
  const taken = new Set<string>();
  const chosen: LegSeat[] = [];
  const unavailable: string[] = [];
  const assigned = resources.flatMap((resource) =>
    resource.assignments.map((label, index) => ({
      label,
      vip: resource.resourceCode === 'VIP_SEAT',
      quoted: resource.assignedClasses?.[index],
    })),
  );
  for (const { label, vip, quoted } of assigned) {
    const seat = byLabel.get(label);
    if (
      !seat ||
      !seat.free ||
      taken.has(seat.seatId) ||
      (vip && seat.seatClass !== 'VIP') ||
      seatClassChangedSinceQuote(quoted, seat.seatClass)
    )
      unavailable.push(label);
    else {
      taken.add(seat.seatId);
      chosen.push(seat);
    }
  }
  if (unavailable.length) return { unavailable };

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
  const enough =
    take(unassigned('VIP_SEAT'), isVip) && take(unassigned('SEAT'), (seat) => !isVip(seat), isVip);
  return enough ? { seats: chosen } : { unavailable: [] };
}
