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
  collectionsInAShift,
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
  type Fail,
} from './invariants-seats.js';
import { inOneSnapshot, type Reader } from './snapshot.js';
import type { World } from './world.js';

/**
 * Every invariant the drill keeps, checked between steps. No flow runs then, but background work
 * does (decision deadlines, hold expiries: ./snapshot.ts), so what the database alone must agree
 * on is read in one snapshot, and each answer of the API is compared with recounts taken around it.
 * Returns the violations found, each one line.
 */
export async function checkInvariants(
  world: World,
  options: { deadlineSlackSeconds: number },
): Promise<string[]> {
  const violations: string[] = [];
  const fail = (text: string) => void violations.push(text);

  await inOneSnapshot(world, (read) => databaseAgrees(read, world, fail, options.deadlineSlackSeconds));

  await freeSeatsShown(world, fail);
  for (const company of world.companies) {
    await ledgerShown(world, company, fail);
    await openShiftAddsUp(world, company, fail);
  }
  await analyticsRecount(world, fail);
  return violations;
}

/** The invariants between rows of the database, all read from the one snapshot `read`. */
async function databaseAgrees(read: Reader, world: World, fail: Fail, deadlineSlackSeconds: number) {
  await noSeatTwice(read, world, fail);
  const bookings = await bookingFacts(read, world);
  bookingsBacked(bookings, fail);
  await journeysAgree(read, world, fail, deadlineSlackSeconds);
  await partnersEndTogether(read, world, fail);
  await confirmedLegsStand(read, world, fail);
  await roundTripsWhole(read, world, fail);
  await ordersAgree(read, world, fail);

  const payments = await paymentLines(read, world);
  bookingsPaid(bookings, payments, fail);
  await refundsLeftTheTill(read, world, payments, fail);
  collectionsInAShift(world, payments, fail);
  await closedShiftsStand(read, world, fail);

  await balancesAreTheirLedger(read, world, fail);
  await pointsEarnedOnce(read, world, bookings, fail);
  await vouchersUsedOnce(read, world, fail);
}
