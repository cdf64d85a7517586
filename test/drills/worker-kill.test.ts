import { describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { holdForConfirm, mobileTraveller, setConfirmation, tripOf } from '../support/journeys.js';
import {
  BLOCK_RENDER_STORE,
  RENDER_STORE,
  downloadTicket,
  holdLock,
  lockWaiters,
  storedRenders,
  ticketsOf,
} from './support/blocking.js';
import { useDrillStack } from './support/stack.js';

/**
 * Drill: the worker is killed (SIGKILL, no chance to clean up) while it stores a PDF render and
 * while it runs a journey confirm. A new worker starts; the render completes once (one stored
 * render, the bytes the traveller receives), the confirm completes once (one request per company,
 * one ticket per traveller), and both callers get their answer (the same request again where the
 * first stopped waiting).
 */
describe('drill: the worker killed mid-render and mid-confirm', { timeout: 150_000 }, () => {
  const stack = useDrillStack();

  it('a new worker completes the render once and the confirm once', async () => {
    const tickets = await ticketsOf(stack);
    const bookingId = await tickets.newBooking();
    const trip = await tripOf(stack.db);
    await setConfirmation(stack.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const caller = await mobileTraveller(stack.app);
    const { quoted, confirmBody } = await holdForConfirm(stack.app, caller, [{ trip }], 2);

    // Both steps are held in flight: the render's store waits on the table, the confirm on the journey row.
    const renderLock = await holdLock(stack.db, BLOCK_RENDER_STORE);
    const journeyLock = await holdLock(
      stack.db,
      `select id from journeys where id = '${quoted.journey_id}' for update`,
    );
    let render: ReturnType<typeof downloadTicket> | undefined;
    let confirm: ReturnType<typeof stack.app.request> | undefined;
    try {
      render = downloadTicket(stack, tickets, bookingId);
      confirm = stack.app.request(`/api/journeys/${quoted.journey_id}/confirm`, {
        method: 'POST',
        headers: caller.headers,
        json: confirmBody,
      });
      await lockWaiters(stack.db, RENDER_STORE);
      await lockWaiters(stack.db, '%journeys%for update%');
      const killed = stack.worker!;
      killed.child.kill('SIGKILL');
      expect((await killed.exited).signal).toBe('SIGKILL');
    } finally {
      await renderLock.release();
      await journeyLock.release();
    }
    await stack.startWorker();

    let rendered = await render;
    // The request waits 20 s for the render; a new worker may take longer to get to it, and then the
    // answer is 503 with Retry-After, the render left running: the retry gets the one render's bytes.
    if (rendered.status === 503) {
      expect(rendered.headers['retry-after'], rendered.body.toString()).toBe('5');
      rendered = await downloadTicket(stack, tickets, bookingId);
    }
    expect(rendered.status, rendered.body.toString()).toBe(200);
    expect(rendered.body.subarray(0, 5).toString()).toBe('%PDF-');
    const renders = await storedRenders(stack.db, bookingId);
    expect(renders).toHaveLength(1);
    expect(renders[0]!.size).toBe(rendered.body.length);

    let confirmed = await confirm;
    // The caller may have given up waiting meanwhile; the same idempotency key gets the one outcome.
    if (confirmed.status !== 200) {
      confirmed = await stack.app.request(`/api/journeys/${quoted.journey_id}/confirm`, {
        method: 'POST',
        headers: caller.headers,
        json: confirmBody,
      });
    }
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const [journey] = await stack.db.query<{ status: string }>(`select status from journeys where id = $1`, [
      quoted.journey_id,
    ]);
    expect(journey!.status).toBe('REQUESTED');
    const requests = await stack.db.query(`select id from confirmation_requests where scope_id = $1`, [
      quoted.journey_id,
    ]);
    expect(requests).toHaveLength(1);
    const issued = await stack.db.query<{ traveller_index: number }>(
      `select traveller_index from journey_tickets where journey_id = $1 order by traveller_index`,
      [quoted.journey_id],
    );
    expect(issued.map((ticket) => ticket.traveller_index)).toEqual([0, 1]);
    const state = await stack.temporal.workflow
      .getHandle(workflowIds.journeyConfirmation(quoted.journey_id))
      .describe();
    expect(state.status.name).toBe('RUNNING');
  });
});
