import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { fetchDocument } from '../support/documents.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookingOfCompany,
  bookJourney,
  confirmOrder,
  eventually,
  holdOrder,
  quote,
  setConfirmation,
  tripOf,
  webTraveller,
} from '../support/journeys.js';
import { createStaffMember, staffLogin } from '../support/staff.js';

/**
 * ARCHITECTURE.md (Temporal): operators "can find every process of one company or booking". A
 * booking is named by its booking row's id (dashboard, decisions, documents, webhooks), its
 * journey's id (the traveller's API) and, for an order, the order's id: BookingId is a keyword list
 * of them, so any one finds the confirmation process and the booking's renders, shares and deliveries.
 */
async function processesOf(app: TestApp, id: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of app.temporal.workflow.list({ query: `BookingId = '${id}'` })) {
    ids.push(execution.workflowId);
  }
  return ids.sort();
}

/** The processes `BookingId = id` lists once every one of `expected` is visible (visibility lags). */
const processesListing = (app: TestApp, id: string, expected: string[]) =>
  eventually(
    () => processesOf(app, id),
    (ids) => expected.every((workflowId) => ids.includes(workflowId)),
  );

describe('BookingId: one id of a booking finds every process of it', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it("a MANUAL booking's confirmation process and its document render are found by its booking id and by its journey id", async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const traveller = await webTraveller(app);
    const { journeyId, confirmed } = await bookJourney(app, traveller, [{ trip }]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const bookingId = await bookingOfCompany(app.db, journeyId, trip.companyId);

    // The company approves its booking (the dashboard's id), then the traveller prints it (the journey's id).
    const member = await createStaffMember(app.db, trip.companyId, 'DISPATCHER');
    const staff = await staffLogin(app, { email: member.email, password: member.password });
    const decided = await app.request(`/dashboard/api/bookings/${bookingId}/status`, {
      method: 'PATCH',
      headers: staff.writeHeaders,
      json: { decision: 'APPROVE' },
    });
    expect(decided.status, decided.text).toBe(200);
    const document = await fetchDocument(
      app,
      `/api/bookings/${journeyId}/document?type=confirmation&locale=en`,
      traveller.headers,
    );
    expect(document.status).toBe(200);
    const [snapshot] = await app.db.query<{ id: string }>(
      `select id from document_snapshots where booking_id = $1 order by created_at desc limit 1`,
      [bookingId],
    );

    const processes = [workflowIds.journeyConfirmation(journeyId), workflowIds.documentRender(snapshot!.id)];
    expect(await processesListing(app, bookingId, processes)).toEqual(processes.sort());
    expect(await processesListing(app, journeyId, processes)).toEqual(processes.sort());
  });

  it("an order's confirmation process is found by the order's id, each journey's id and each booking's id", async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const traveller = await webTraveller(app);
    const journeyIds = [
      (await quote(app, traveller, [{ trip }])).journey_id,
      (await quote(app, traveller, [{ trip }])).journey_id,
    ];
    const orderId = randomUUID();
    const held = await holdOrder(app, traveller, orderId, journeyIds);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(
      app,
      traveller,
      orderId,
      held.body.data.holdBatchId as string,
      journeyIds.map((journeyId) => ({ journeyId, partySize: 1 })),
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    const bookingIds = await Promise.all(
      journeyIds.map((id) => bookingOfCompany(app.db, id, trip.companyId)),
    );

    const process = workflowIds.orderConfirmation(orderId);
    for (const id of [orderId, ...journeyIds, ...bookingIds]) {
      expect(await processesListing(app, id, [process]), id).toEqual([process]);
    }
  });
});
