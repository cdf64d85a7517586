import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness.js';
import {
  cancelPayment,
  collect,
  decide,
  dispatch,
  moveCash,
  refund,
  runTrip,
  verify,
} from './invariants/company-flows.js';
import { announceCash, cancel, journey, lockAndBook, modify, redeem } from './invariants/customer-flows.js';
import { seededDice } from './invariants/dice.js';
import { checkInvariants } from './invariants/invariants.js';
import {
  cancelLinked,
  connectionJourney,
  raceOnLinked,
  refundLeg,
  roundTrip,
} from './invariants/linked-flows.js';
import { raceOnBooking, raceOnShared } from './invariants/races.js';
import { buildWorld, companyIds, replenish, type World } from './invariants/world.js';

/**
 * Whole-system invariants under a seeded random mix of real flows through the API: seat locks and
 * bookings (with vouchers), AUTO and MANUAL journeys of one leg or a connection of two with company
 * decisions and deadlines, round trips of two seat locks, cancels (of a whole connection or round trip)
 * and modifications, cash announced, verified, collected at the office and refunded (one leg too), trips run from
 * boarding to completion, tills moved, closed and reopened, loyalty redemptions, and about one step
 * in eight a burst of 2-4 of these at once, plus races aimed at one booking, seat, voucher or till.
 *
 * Every ten steps, with no flow running, ./invariants/invariants.ts checks seats, tickets and
 * credentials, journeys (a connection's legs and a round trip's bookings end together unless refunded,
 * their trip was cancelled or the traveller cancelled once the other had travelled), payment lines against the ledger and its statistics, cash shifts,
 * loyalty balances and vouchers, and analytics against a recount. Background work goes on meanwhile
 * (decision deadlines, hold and seat lock expiries), so the database is read in one snapshot and each
 * answer of the API between two equal recounts (./invariants/snapshot.ts). Replay a run with
 * INVARIANT_SEED and INVARIANT_STEPS (a seed fixes the choices; the interleaving of concurrent steps
 * may still differ).
 */
const SEED = Number(process.env.INVARIANT_SEED ?? 20261205);
const STEPS = Number(process.env.INVARIANT_STEPS ?? 360);
const CHECK_EVERY = 10;
const TIME_BUDGET_MS = 120_000;
/** Decision window 15 minutes × TIME_SCALE 0.02 = 18 s; a request may outlive it by this much. */
const DEADLINE_SLACK_SECONDS = 8;

const FLOWS: Record<string, (world: World) => Promise<void>> = {
  lockAndBook,
  journey,
  decide,
  cancel,
  modify,
  announceCash,
  verify,
  collect,
  refund,
  dispatch,
  redeem,
  cancelPayment,
  raceOnBooking,
  runTrip,
  raceOnShared,
  moveCash,
  connectionJourney,
  roundTrip,
  cancelLinked,
  refundLeg,
  raceOnLinked,
};
const WEIGHTS: [keyof typeof FLOWS, number][] = [
  ['lockAndBook', 14],
  ['journey', 14],
  ['decide', 7],
  ['cancel', 6],
  ['modify', 6],
  ['announceCash', 8],
  ['verify', 7],
  ['collect', 6],
  ['refund', 5],
  ['dispatch', 5],
  ['redeem', 4],
  ['cancelPayment', 2],
  ['raceOnBooking', 6],
  ['runTrip', 3],
  ['raceOnShared', 6],
  ['moveCash', 3],
  ['connectionJourney', 10],
  ['roundTrip', 7],
  ['cancelLinked', 3],
  ['refundLeg', 3],
  ['raceOnLinked', 4],
];
/**
 * Answers the run must have seen at least once (one of each group), or it exercised too little to
 * prove anything. A till is closed by the cash flow or by the first request of the close race; a
 * linked booking is cancelled by its own flow or by either cancel of the race of two.
 */
const MUST_HAPPEN: readonly (readonly string[])[] = [
  ['book 201'],
  ['confirm-auto 200'],
  ['confirm-manual 200'],
  ['decide-APPROVE 200'],
  ['office 201'],
  ['refund 200'],
  ['run-COMPLETE 200'],
  ['shift-CLOSE 200', 'race close+collect#0 200'],
  ['confirm-connection-auto 200'],
  ['confirm-connection-manual 200'],
  ['round-trip 201'],
  ['cancel-linked 200', 'race-linked cancel+cancel#0 200', 'race-linked cancel+cancel#1 200'],
];

/**
 * Waits until the last decision deadline still pending has passed by DEADLINE_SLACK_SECONDS (the
 * window is 18 s, so a request of the last steps may have most of it left).
 */
async function untilDeadlinesPassed(world: World): Promise<void> {
  const [row] = await world.app.db.query<{ wait_ms: number }>(
    `select coalesce(extract(epoch from max(deadline) - now()) * 1000, 0)::float8 as wait_ms
       from confirmation_requests where status = 'PENDING' and company_id = any($1)`,
    [companyIds(world)],
  );
  const waitMs = Math.max(0, row!.wait_ms) + DEADLINE_SLACK_SECONDS * 1000;
  console.log(`[invariants] the last pending decision deadline passes in ${Math.round(row!.wait_ms)} ms`);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
}

describe('whole-system invariants under a random mix of flows', () => {
  const app = useTestApp({
    TIME_SCALE: 0.02,
    // The drill's four travellers do far more than one person would: no per-account caps or rate limits.
    UNPAID_BOOKINGS_MAX: 0,
    HELD_SEATS_MAX_PER_TRIP: 0,
    HELD_SEATS_MAX_TOTAL: 0,
    SEAT_LOCK_RATE_LIMIT_PER_HOUR: 0,
    JOURNEY_HOLD_RATE_LIMIT_PER_HOUR: 0,
    BOOKING_RATE_LIMIT_PER_HOUR: 0,
    ANALYTICS_RATE_LIMIT_PER_MINUTE: 0,
  });

  it(`keeps every invariant (seed ${SEED}, up to ${STEPS} steps)`, { timeout: 200_000 }, async () => {
    const dice = seededDice(SEED);
    const world = await buildWorld(app, dice);
    const runFlow = (name: string) =>
      FLOWS[name]!(world).catch((error: unknown) => world.answers.threw(name, error));
    const violations: string[] = [];
    const check = async (label: string) => {
      const found = await checkInvariants(world, { deadlineSlackSeconds: DEADLINE_SLACK_SECONDS });
      violations.push(...found.slice(0, 50).map((text) => `[${label}] ${text}`));
    };

    const started = Date.now();
    let step = 1;
    for (; step <= STEPS && Date.now() - started < TIME_BUDGET_MS; step++) {
      const burst = dice.chance(0.12) ? dice.int(2, 4) : 1;
      await Promise.all(Array.from({ length: burst }, () => runFlow(dice.weighted(WEIGHTS))));
      if (step % CHECK_EVERY === 0) await check(`after step ${step}`);
      if (step % 5 === 0) await replenish(world);
    }
    // Requests still waiting for a company reach their decision deadline; then a last look.
    await untilDeadlinesPassed(world);
    await check('at the end');

    const seen = world.answers.summary();
    console.log(`[invariants] seed ${SEED}: ${step - 1} steps; answers ${JSON.stringify(seen)}`);
    expect({ serverErrors: world.answers.serverErrors, violations }).toEqual({
      serverErrors: [],
      violations: [],
    });
    expect(MUST_HAPPEN.filter((group) => !group.some((answer) => seen[answer]))).toEqual([]);
  });
});
