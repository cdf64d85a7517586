import type { BookableTripFixture } from '../../support/bookings.js';
import { atDamascus, futureDay } from '../../support/factories.js';
import { addTrip, bookableOf, type ConnectionPair, type World } from './world.js';

/**
 * The trips that journeys of more than one booking need: connections from → via → to, whose second
 * leg leaves `via` an hour after the first arrives (AUTO then AUTO, AUTO then MANUAL, or MANUAL then
 * AUTO), and AUTO trips back from `to` to `from` on days 6-7, after every outbound trip has arrived,
 * for round trips.
 */
const CONNECTIONS_KEPT = 3;
const RETURNS_KEPT = 2;
const LEG_MINUTES = 180;
const CHANGE_MINUTES = 60;

async function addConnection(world: World): Promise<void> {
  const n = world.connections.length;
  const [firstCompany, secondCompany] = [
    [world.auto, world.auto],
    [world.auto, world.manual],
    [world.manual, world.auto],
  ][n % 3]!;
  const departAt = atDamascus(futureDay(2 + (n % 3)), `${String(6 + (n % 9)).padStart(2, '0')}:15`);
  const first = await addTrip(world, firstCompany!, { from: world.from, to: world.via, departAt });
  const second = await addTrip(world, secondCompany!, {
    from: world.via,
    to: world.to,
    departAt: new Date(departAt.getTime() + (LEG_MINUTES + CHANGE_MINUTES) * 60_000),
  });
  world.connections.push({
    first: { company: firstCompany!, trip: first },
    second: { company: secondCompany!, trip: second },
  });
}

async function addReturn(world: World): Promise<void> {
  const n = world.returns.length;
  const departAt = atDamascus(futureDay(6 + (n % 2)), `${String(7 + (n % 12)).padStart(2, '0')}:40`);
  world.returns.push(await addTrip(world, world.auto, { from: world.to, to: world.from, departAt }));
}

/** Connections whose two legs are both still bookable. */
export async function bookableConnections(world: World): Promise<ConnectionPair[]> {
  const ids = world.connections.flatMap((pair) => [pair.first.trip.tripId, pair.second.trip.tripId]);
  const bookable = await bookableOf(world, ids);
  return world.connections.filter(
    (pair) => bookable.has(pair.first.trip.tripId) && bookable.has(pair.second.trip.tripId),
  );
}

/** Return trips still bookable. */
export async function bookableReturns(world: World): Promise<BookableTripFixture[]> {
  const bookable = await bookableOf(
    world,
    world.returns.map((trip) => trip.tripId),
  );
  return world.returns.filter((trip) => bookable.has(trip.tripId));
}

/** Tops connections and return trips up to a few bookable ones each. */
export async function replenishLinks(world: World): Promise<void> {
  for (let n = (await bookableConnections(world)).length; n < CONNECTIONS_KEPT; n++)
    await addConnection(world);
  for (let n = (await bookableReturns(world)).length; n < RETURNS_KEPT; n++) await addReturn(world);
}
