import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  bookSeats,
  dispatch,
  operationsSnapshot,
  operationsWorld,
  scan,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';
import { NOT_ONE_LINE_TEXTS, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * The scan's device_id is shown to others (a second scanner's ALREADY_CHECKED_IN names it, and the
 * operations room's check-in): one line with no control or bidirectional-override character, which
 * would make one device's name read as another's. A refused scan is 400 VALIDATION_FAILED naming it,
 * checks nobody in and stores no answer, so the same client scan may be sent again corrected.
 */
describe('the driver scan: its device_id', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  let traveller: BookedTraveller;

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 4 });
    traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const started = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    expect(started.status, started.text).toBe(200);
  });

  const rows = async () => ({
    operations: await operationsSnapshot(app.db, world.trip.tripId),
    scans: await app.db.query('select * from boarding_scans where trip_id = $1 order by client_scan_id', [
      world.trip.tripId,
    ]),
  });

  it('with a control or bidirectional-override character, a line break or a tab is refused: nobody checked in', async () => {
    const clientScanId = randomUUID();
    const before = await rows();
    for (const [what, deviceId] of Object.entries({ ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS })) {
      const refused = await scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!, {
        clientScanId,
        deviceId,
      });
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: 'body.device_id' }),
      );
    }
    expect(await rows()).toEqual(before);

    // Sent again with a printable device id, the same client scan checks in, the id stored trimmed.
    const checkedIn = await scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!, {
      clientScanId,
      deviceId: '  باب 1 ',
    });
    expect(checkedIn.status, checkedIn.text).toBe(200);
    expect(checkedIn.body.data).toMatchObject({ outcome: 'CHECKED_IN', checkedIn: { deviceId: 'باب 1' } });
    const second = await scan(app, world.dispatcher.token, world.trip.tripId, traveller.credentials[0]!, {
      deviceId: 'station-2',
    });
    expect(second.body.data).toMatchObject({
      outcome: 'ALREADY_CHECKED_IN',
      checkedIn: { deviceId: 'باب 1' },
    });
  });
});
