import { beforeAll, describe, expect, it } from 'vitest';
import { saveBusLayout } from '../../../db/writes/catalogue.js';
import { coachLayout } from '../../../domain/layout-templates.js';
import { useTestApp } from '../../support/harness.js';
import { bookSeats, dispatchView, operationsWorld, type OperationsWorld } from '../../support/operations.js';

/**
 * The manifest lists a trip's travellers in the bus's seat order (lower deck first, then the seat
 * label's natural order: 2 before 10, 10 before 12B), whoever booked first: the driver walking the
 * bus and the operations room read the same list.
 */
describe('the manifest in seat order (driver app and operations room)', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  const booked: Record<string, string> = {};

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 12 });
    // The company labels its last seat "12B": layouts carry letters as well as numbers.
    const document = coachLayout({ rows: 3, pattern: '2+2' });
    const last = document.elements.find((element) => element.seatNumber === '12')!;
    last.seatNumber = '12B';
    await app.db.transaction((client) =>
      saveBusLayout(client, { busId: world.trip.busId, document, saveMode: 'active' }),
    );
    // Booked in an order that neither the booking order nor text order (1, 10, 12B, 2) puts right.
    for (const label of ['10', '2', '12B', '1']) {
      booked[label] = (await bookSeats(app, world.trip, [label])).ticketIds[0]!;
    }
  });

  const seatsOf = (manifest: { seat_number: string; manifest_item_id: string }[]) =>
    manifest.map((item) => [item.seat_number, item.manifest_item_id]);
  const inSeatOrder = () => ['1', '2', '10', '12B'].map((label) => [label, booked[label]]);

  it('shows the driver seats 1, 2, 10, 12B', async () => {
    const response = await app.request(`/driver/api/trips/${world.trip.tripId}/manifest`, {
      token: world.driver.token,
    });
    expect(response.status, response.text).toBe(200);
    expect(seatsOf(response.body.data.manifest)).toEqual(inSeatOrder());
  });

  it('shows the operations room the same order', async () => {
    const response = await dispatchView(app, world.dispatcher, world.trip.tripId);
    expect(response.status, response.text).toBe(200);
    expect(seatsOf(response.body.data.manifest)).toEqual(inSeatOrder());
  });
});
