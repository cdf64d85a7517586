/**
 * Rules of a journey quote (SPEC POST /journeys/quote) that need no database: whether the
 * requested resources can be offered on a leg, and what they cost. Quote writes no inventory;
 * these checks tell the traveller early what a hold would refuse.
 */
import { legFare, seatFare } from './pricing.js';
import type { SeatClass } from './seat-layout.js';

export const RESOURCE_CODES = ['SEAT', 'VIP_SEAT'] as const;
export type ResourceCode = (typeof RESOURCE_CODES)[number];

export interface ResourceRequest {
  resource_code: ResourceCode;
  quantity: number;
  /** Passenger-visible seat labels (seatNumber) the traveller picked; may be fewer than quantity. */
  assignments: string[];
}

/** A leg's fares: the trip's full fares and the fare shares of its board and alight calls. */
export interface LegFares {
  priceBase: number;
  priceVip: number | null;
  boardBp: number;
  alightBp: number;
}

/** What the leg's bus offers on the leg's [board, alight) interval. */
export interface LegAvailability {
  freeSeats: number;
  /** VIP-class seats in the active layout, free or not (0 when the layout has none). */
  vipSeats: number;
  /** VIP-class seats of the layout still free on the leg's interval. */
  freeVipSeats: number;
  /** The assigned labels found in the active layout, with their class and whether they are taken. */
  seats: ReadonlyMap<string, { seatClass: SeatClass; taken: boolean }>;
}

export interface Refusal {
  status: 400 | 409;
  errorCode: string;
  message: string;
  details?: Record<string, unknown>;
}

const refuse = (
  status: 400 | 409,
  errorCode: string,
  message: string,
  details?: Record<string, unknown>,
): Refusal => ({
  status,
  errorCode,
  message,
  ...(details ? { details } : {}),
});

/**
 * The first reason the resources cannot be offered on a leg, or null. Input mistakes (400) come
 * before inventory conflicts (409).
 */
export function refuseLegResources(
  partySize: number,
  fares: LegFares,
  resources: readonly ResourceRequest[],
  availability: LegAvailability,
): Refusal | null {
  const vip = resources.filter((resource) => resource.resource_code === 'VIP_SEAT');
  // A VIP fare on a bus whose layout has no VIP-class seat sells nothing: the hold could only give
  // a standard seat, which the seat map and POST /bookings price at the standard fare.
  if (vip.length && (fares.priceVip === null || availability.vipSeats === 0)) {
    return refuse(400, 'RESOURCE_NOT_OFFERED', 'This trip sells no VIP seats');
  }
  const labels = resources.flatMap((resource) => resource.assignments);
  const unknown = labels.filter((label) => !availability.seats.has(label));
  if (unknown.length)
    return refuse(400, 'SEAT_NOT_FOUND', 'A chosen seat is not on this bus', { seats: unknown });
  const standard = vip
    .flatMap((resource) => resource.assignments)
    .filter((label) => availability.seats.get(label)!.seatClass !== 'VIP');
  if (standard.length) {
    return refuse(400, 'SEAT_CLASS_MISMATCH', 'A VIP seat was asked for with a standard seat chosen', {
      seats: standard,
    });
  }
  const taken = labels.filter((label) => availability.seats.get(label)!.taken);
  if (taken.length)
    return refuse(409, 'SEAT_OCCUPIED', 'A chosen seat is already taken on this part of the trip', {
      seats: taken,
    });
  if (availability.freeSeats < partySize) {
    return refuse(409, 'INSUFFICIENT_SEATS', 'Not enough free seats on this part of the trip', {
      free_seats: availability.freeSeats,
    });
  }
  // The hold seats the chosen labels first, then each unassigned VIP_SEAT on a VIP seat still free:
  // a VIP-class seat chosen for any resource (a SEAT too) is one fewer for them.
  const unassignedVip = vip.reduce(
    (sum, resource) => sum + resource.quantity - resource.assignments.length,
    0,
  );
  const chosenVip = labels.filter((label) => availability.seats.get(label)!.seatClass === 'VIP').length;
  if (unassignedVip + chosenVip > availability.freeVipSeats) {
    return refuse(409, 'INSUFFICIENT_SEATS', 'Not enough free VIP seats on this part of the trip', {
      free_vip_seats: availability.freeVipSeats,
    });
  }
  return null;
}

export interface PricedResource {
  resource_code: ResourceCode;
  quantity: number;
  /** The leg fare of the resource's class. */
  unit_price: number;
  subtotal: number;
  assignments: string[];
  /**
   * The class of each assigned seat (assignments' order) as the quote priced it: the hold refuses a
   * seat whose class changed since (seatClassChangedSinceQuote).
   */
  assignment_classes: SeatClass[];
}

export interface PricedLeg {
  /** The standard leg fare. */
  unit_price: number;
  quantity: number;
  subtotal: number;
  resources: PricedResource[];
  assignments: string[];
}

/**
 * Prices a leg: a VIP_SEAT costs the VIP leg fare; a SEAT costs the standard leg fare, or the
 * VIP one when the seat assigned to it is VIP class.
 */
export function priceLeg(
  fares: LegFares,
  resources: readonly ResourceRequest[],
  seatClassOf: (label: string) => SeatClass,
): PricedLeg {
  const fareOf = (seatClass: SeatClass) =>
    legFare(
      seatFare({ priceBase: fares.priceBase, priceVip: fares.priceVip }, seatClass),
      fares.boardBp,
      fares.alightBp,
    );
  const priced = resources.map((resource): PricedResource => {
    const resourceClass: SeatClass = resource.resource_code === 'VIP_SEAT' ? 'VIP' : 'STANDARD';
    const unitPrice = fareOf(resourceClass);
    const assigned = resource.assignments.reduce(
      (sum, label) => sum + (resourceClass === 'VIP' ? unitPrice : fareOf(seatClassOf(label))),
      0,
    );
    const unassigned = (resource.quantity - resource.assignments.length) * unitPrice;
    return {
      resource_code: resource.resource_code,
      quantity: resource.quantity,
      unit_price: unitPrice,
      subtotal: assigned + unassigned,
      assignments: [...resource.assignments],
      assignment_classes: resource.assignments.map(seatClassOf),
    };
  });
  return {
    unit_price: fareOf('STANDARD'),
    quantity: priced.reduce((sum, resource) => sum + resource.quantity, 0),
    subtotal: priced.reduce((sum, resource) => sum + resource.subtotal, 0),
    resources: priced,
    assignments: priced.flatMap((resource) => resource.assignments),
  };
}

/**
 * Whether a seat assigned in the quote is no longer of the class the quote priced it at (a layout
 * saved or a bus swapped by a re-plan since): holding it would charge one class's fare for the
 * other's seat, so the traveller quotes again. `quoted` is undefined for a quote stored before
 * the classes were recorded, which is held as it was priced.
 */
export function seatClassChangedSinceQuote(quoted: SeatClass | undefined, current: SeatClass): boolean {
  return quoted !== undefined && quoted !== current;
}
