import { pickRow, pickTrip, staffRead, staffWrite, type DrillCompany, type World } from './world.js';

/**
 * What the companies' staff do through the dashboard API: decide MANUAL requests, verify, cancel and
 * refund payments, collect cash at the office, dispatch trips (one action, or a whole day from
 * boarding with check-ins to completion), and move cash in and out of the till or close and reopen it.
 */

export const decideBooking = (world: World, bookingId: string, decision: 'APPROVE' | 'REJECT') =>
  staffWrite(
    world,
    world.manual,
    `/dashboard/api/bookings/${bookingId}/status`,
    { decision, ...(decision === 'REJECT' ? { reason: 'Full' } : {}) },
    'PATCH',
  );

export const collectAtOffice = (world: World, company: DrillCompany, bookingId: string) =>
  staffWrite(world, company, '/dashboard/api/payments', { booking_id: bookingId });

export const paymentAction = (
  world: World,
  company: DrillCompany,
  paymentId: string,
  action: 'verify' | 'cancel' | 'refund',
) => staffWrite(world, company, `/dashboard/api/payments/${paymentId}/${action}`);

export const dispatchTrip = (
  world: World,
  company: DrillCompany,
  tripId: string,
  body: Record<string, unknown>,
) => staffWrite(world, company, `/dashboard/api/trips/${tripId}/dispatch`, body);

export const shiftCommand = (world: World, company: DrillCompany, body: Record<string, unknown>) =>
  staffWrite(world, company, '/dashboard/api/payments/cash-shifts', body);

/** The open shift as the dashboard shows it (expected_amount, collections, ...), or undefined. */
export async function currentShift(world: World, company: DrillCompany) {
  return (await staffRead(world, company, '/dashboard/api/payments/cash-shifts')).body?.data?.current;
}

export async function decide(world: World): Promise<void> {
  const booking = await pickRow<{ id: string }>(
    world,
    `select id from bookings where company_id = $1 and status = 'PENDING_CONFIRMATION' order by created_at`,
    [world.manual.id],
  );
  if (!booking) return;
  const decision = world.dice.chance(0.7) ? 'APPROVE' : 'REJECT';
  world.answers.record(`decide-${decision}`, await decideBooking(world, booking.id, decision));
}

/** A payment line of a random company in one of the statuses, and that company. */
async function paymentIn(world: World, statuses: string[]) {
  const company = world.dice.pick(world.companies)!;
  const payment = await pickRow<{ id: string }>(
    world,
    `select id from payment_operations where company_id = $1 and status = any($2) order by created_at`,
    [company.id, statuses],
  );
  return payment && { company, payment };
}

export async function verify(world: World): Promise<void> {
  const found = await paymentIn(world, ['PENDING']);
  if (found)
    world.answers.record('verify', await paymentAction(world, found.company, found.payment.id, 'verify'));
}

export async function cancelPayment(world: World): Promise<void> {
  const found = await paymentIn(world, ['PENDING']);
  if (found)
    world.answers.record('pay-cancel', await paymentAction(world, found.company, found.payment.id, 'cancel'));
}

export async function refund(world: World): Promise<void> {
  const found = await paymentIn(world, ['COMPLETED', 'REFUND_DUE']);
  if (found)
    world.answers.record('refund', await paymentAction(world, found.company, found.payment.id, 'refund'));
}

export async function collect(world: World): Promise<void> {
  const company = world.dice.pick(world.companies)!;
  const booking = await pickRow<{ id: string }>(
    world,
    `select id from bookings where company_id = $1 and status = 'CONFIRMED' and payment_status = 'UNPAID' order by created_at`,
    [company.id],
  );
  if (booking) world.answers.record('office', await collectAtOffice(world, company, booking.id));
}

/** One dispatch action on any trip; DEPART and START_BOARDING come up twice as often, a CANCEL rarely. */
export async function dispatch(world: World): Promise<void> {
  const { dice } = world;
  const { company, trip } = await pickTrip(world);
  const action = dice.pick([
    'START_BOARDING',
    'MARK_DELAYED',
    'DEPART',
    'ARRIVE',
    'COMPLETE',
    'START_BOARDING',
    'DEPART',
    'CANCEL',
  ])!;
  if (action === 'CANCEL' && !dice.chance(0.35)) return;
  const body =
    action === 'MARK_DELAYED'
      ? { action, reason: 'Traffic', delay_minutes: dice.int(10, 39) }
      : action === 'CANCEL'
        ? { action, reason: 'Breakdown' }
        : { action };
  world.answers.record(`dispatch-${action}`, await dispatchTrip(world, company, trip.tripId, body));
}

/** A trip's whole day: boarding, check-ins of most valid tickets, their cash at the door, depart, arrive, complete. */
export async function runTrip(world: World): Promise<void> {
  const { dice, answers } = world;
  const { company, trip } = await pickTrip(world);
  answers.record(
    'run-START_BOARDING',
    await dispatchTrip(world, company, trip.tripId, { action: 'START_BOARDING' }),
  );
  const tickets = await world.app.db.query<{ id: string }>(
    `select k.id from journey_tickets k where k.trip_id = $1 and k.status = 'VALID' order by k.created_at, k.traveller_index`,
    [trip.tripId],
  );
  for (const ticket of tickets) {
    if (!dice.chance(0.6)) continue;
    answers.record(
      'run-CHECK_IN',
      await dispatchTrip(world, company, trip.tripId, {
        action: 'CHECK_IN',
        manifest_item_id: ticket.id,
        manifest_item_type: 'JOURNEY_TICKET',
      }),
    );
  }
  const unpaid = await world.app.db.query<{ id: string }>(
    `select id from bookings where trip_id = $1 and status = 'CHECKED_IN' and payment_status = 'UNPAID'`,
    [trip.tripId],
  );
  for (const booking of unpaid) {
    if (dice.chance(0.9)) answers.record('run-office', await collectAtOffice(world, company, booking.id));
  }
  for (const action of ['DEPART', 'ARRIVE', 'COMPLETE']) {
    const answer = answers.record(
      `run-${action}`,
      await dispatchTrip(world, company, trip.tripId, { action }),
    );
    if (answer.status !== 200) break;
  }
}

/** Cash in or out of the till (out twice as often), or close the shift at its expected amount and open a new one. */
export async function moveCash(world: World): Promise<void> {
  const { dice, answers } = world;
  const company = dice.pick(world.companies)!;
  const what = dice.pick(['IN', 'OUT', 'OUT', 'CLOSE'] as const)!;
  if (what === 'CLOSE') {
    const current = await currentShift(world, company);
    if (!current) return;
    answers.record(
      'shift-CLOSE',
      await shiftCommand(world, company, { action: 'CLOSE', declared_amount: current.expected_amount }),
    );
    answers.record(
      'shift-OPEN',
      await shiftCommand(world, company, { action: 'OPEN', opening_balance: 10_000 * dice.int(2, 6) }),
    );
    return;
  }
  answers.record(
    `shift-${what}`,
    await shiftCommand(world, company, {
      action: 'ADJUST',
      direction: what,
      amount: 1_000 * dice.int(1, 30),
      reason: 'Random movement',
    }),
  );
}
