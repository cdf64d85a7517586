import {
  balancesAreTheirLedger,
  analyticsRecount,
  pointsEarnedOnce,
  vouchersUsedOnce,
} from './invariants-loyalty.js';
import { confirmedLegsStand, ordersAgree, partnersEndTogether, roundTripsWhole } from './invariants-links.js';
import {
  bookingsPaid,
  closedShiftsStand,
  ledgerShown,
  openShiftAddsUp,
  paymentLines,
  refundsLeftTheTill,
} from './invariants-money.js';
import {
  bookingFacts,
  bookingsBacked,
  freeSeatsShown,
  journeysAgree,
  noSeatTwice,
} from './invariants-seats.js';
import type { World } from './world.js';

/**
 * Every invariant the drill keeps, checked at one moment between steps (nothing else runs then).
 * Returns the violations found, each one line.
 */
export async function checkInvariants(
  world: World,
  options: { deadlineSlackSeconds: number },
): Promise<string[]> {
  const violations: string[] = [];
  const fail = (text: string) => void violations.push(text);

  await noSeatTwice(world, fail);
  await freeSeatsShown(world, fail);
  const bookings = await bookingFacts(world);
  bookingsBacked(bookings, fail);
  await journeysAgree(world, fail, options.deadlineSlackSeconds);
  await partnersEndTogether(world, fail);
  await confirmedLegsStand(world, fail);
  await roundTripsWhole(world, fail);
  await ordersAgree(world, fail);

  const payments = await paymentLines(world);
  bookingsPaid(bookings, payments, fail);
  await refundsLeftTheTill(world, payments, fail);
  for (const company of world.companies) {
    await ledgerShown(world, company, payments, fail);
    await openShiftAddsUp(world, company, payments, fail);
  }
  await closedShiftsStand(world, fail);

  await balancesAreTheirLedger(world, fail);
  await pointsEarnedOnce(world, bookings, fail);
  await vouchersUsedOnce(world, fail);
  await analyticsRecount(world, fail);
  return violations;
}
