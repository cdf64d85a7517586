import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller, type TestApp } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import {
  auditRows,
  expectError,
  signedInAdmin,
  writeWaitingForAccount,
  writeWhileAccountChanges,
  type AdminBrowser,
} from './helpers.js';

/**
 * Support tickets: travellers open them about their bookings at /api/support-tickets (/api/tickets
 * is the boarding-ticket API); support lists, reads, answers, assigns and closes them.
 */
describe('support tickets', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  const limited = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000, SUPPORT_TICKET_RATE_LIMIT_PER_HOUR: 1 });
  let companyId: string;
  let traveller: SignedInTraveller;
  let bookingId: string;
  let support: { admin: { id: string }; browser: AdminBrowser };

  async function bookingOf(owner: SignedInTraveller) {
    const corridor = await createCorridor(app.db);
    const rows = await confirmedJourneyRows(app.db, {
      ownerUserId: owner.userId,
      trip: journeyTripOf(corridor),
      travellers: ['Rami Haddad'],
    });
    return { bookingId: rows.bookingId, companyId: corridor.company.id };
  }

  beforeAll(async () => {
    traveller = await app.signIn();
    ({ bookingId, companyId } = await bookingOf(traveller));
    support = await signedInAdmin(app, { role: 'SUPPORT' });
  });

  const open = (on: TestApp, who: SignedInTraveller, body: Record<string, unknown>) =>
    on.request('/api/support-tickets', { method: 'POST', headers: who.writeHeaders, json: body });
  const write = (who: SignedInTraveller, ticketId: string, message: string) =>
    app.request(`/api/support-tickets/${ticketId}/messages`, {
      method: 'POST',
      headers: who.writeHeaders,
      json: { message },
    });
  /**
   * Tickets these ids opened or name (as traveller, company or booking): other test files open
   * tickets in the same database at the same time, so a count of the whole table would move.
   */
  const ticketCount = async (...ids: string[]) =>
    (
      await app.db.query<{ n: number }>(
        `select count(*)::int as n from support_tickets
          where opened_by = any($1::uuid[]) or traveller_user_id = any($1::uuid[])
             or company_id = any($1::uuid[]) or booking_id = any($1::uuid[])`,
        [ids],
      )
    )[0]!.n;

  it('a traveller opens a ticket about their booking; support answers, assigns and closes it, each change recorded', async () => {
    const opened = await open(app, traveller, {
      bookingId,
      subject: 'Refund question',
      message: 'Trip was cancelled',
    });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data).toMatchObject({
      subject: 'Refund question',
      status: 'OPEN',
      booking: { id: bookingId },
      company: { id: companyId },
      messages: [{ from: 'TRAVELLER', body: 'Trip was cancelled' }],
    });
    const ticketId = opened.body.data.id;

    const listed = await support.browser.get(`/tickets?bookingId=${bookingId}`);
    expect(listed.body.data.items).toEqual([
      expect.objectContaining({
        id: ticketId,
        status: 'OPEN',
        traveller: expect.objectContaining({ id: traveller.userId, name: 'Test Traveller' }),
        company: expect.objectContaining({ id: companyId }),
        assignee: null,
        messageCount: 1,
      }),
    ]);
    const replied = await support.browser.send('POST', `/tickets/${ticketId}/replies`, {
      message: 'Refunds come in cash',
    });
    expect(replied.body.data.ticket.status).toBe('ANSWERED');
    const assigned = await support.browser.send('POST', `/tickets/${ticketId}/assign`, {
      assigneeId: support.admin.id,
    });
    expect(assigned.body.data.ticket.assignee).toMatchObject({ id: support.admin.id });

    const seen = await app.request(`/api/support-tickets/${ticketId}`, {
      headers: { Cookie: traveller.cookie },
    });
    expect(seen.body.data.messages.map((message: { from: string }) => message.from)).toEqual([
      'TRAVELLER',
      'SUPPORT',
    ]);
    expect(seen.text).not.toContain(support.admin.id);
    expect((await write(traveller, ticketId, 'Thank you')).body.data.status).toBe('OPEN');

    const closed = await support.browser.send('POST', `/tickets/${ticketId}/close`, {
      resolution: 'Refunded at the office',
    });
    expect(closed.body.data.ticket).toMatchObject({
      status: 'CLOSED',
      resolution: 'Refunded at the office',
      closedAt: expect.any(String),
    });
    // Each change answered the ticket to support (who holds tickets.view): that read is recorded beside it.
    expect((await auditRows(app.db, ticketId)).map((row) => row.action)).toEqual([
      'tickets.reply',
      'tickets.read',
      'tickets.assign',
      'tickets.read',
      'tickets.close',
      'tickets.read',
    ]);
    const before = await auditRows(app.db, ticketId);
    expectError(
      await support.browser.send('POST', `/tickets/${ticketId}/replies`, { message: 'More' }),
      409,
      'TICKET_CLOSED',
    );
    expectError(await write(traveller, ticketId, 'Still there?'), 409, 'TICKET_CLOSED');
    expect(await auditRows(app.db, ticketId)).toEqual(before);

    const detail = await support.browser.get(`/tickets/${ticketId}`);
    expect(
      detail.body.data.messages.map((message: { author: { kind: string } }) => message.author.kind),
    ).toEqual(['TRAVELLER', 'ADMIN', 'TRAVELLER']);
    const reads = await app.db.query<{ action: string }>(
      `select action from audit_log where actor_id = $1 and action in ('tickets.list', 'tickets.read') order by id`,
      [support.admin.id],
    );
    // The list, the answers of the reply, the assignment and the closing, and the GET.
    expect(reads.map((row) => row.action)).toEqual([
      'tickets.list',
      'tickets.read',
      'tickets.read',
      'tickets.read',
      'tickets.read',
    ]);
  });

  it("refuses another traveller's booking or ticket, bad input, and invalid assignees, storing nothing", async () => {
    const stranger = await app.signIn();
    const ours = [stranger.userId, traveller.userId, bookingId, companyId];
    const before = await ticketCount(...ours);
    expectError(
      await open(app, stranger, { bookingId, subject: 'Not mine', message: 'Hello' }),
      404,
      'BOOKING_NOT_FOUND',
    );
    expectError(await open(app, traveller, { bookingId, subject: 'No message' }), 400, 'VALIDATION_FAILED');
    expectError(
      await open(app, traveller, { bookingId: 'booking-1', subject: 'Bad id', message: 'x' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await open(app, traveller, { bookingId, subject: 'Extra', message: 'x', priority: 'URGENT' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await app.request('/api/support-tickets', {
        method: 'POST',
        headers: { Cookie: traveller.cookie },
        json: { bookingId, subject: 'No CSRF', message: 'x' },
      }),
      403,
      'CSRF_TOKEN_INVALID',
    );
    expect(await ticketCount(...ours)).toBe(before);

    const mine = await open(app, traveller, { bookingId, subject: 'Mine', message: 'Hello' });
    const ticketId = mine.body.data.id;
    expectError(
      await app.request(`/api/support-tickets/${ticketId}`, { headers: { Cookie: stranger.cookie } }),
      404,
      'TICKET_NOT_FOUND',
    );
    expectError(await write(stranger, ticketId, 'Hijack'), 404, 'TICKET_NOT_FOUND');
    const strangerList = await app.request('/api/support-tickets', { headers: { Cookie: stranger.cookie } });
    expect(strangerList.body.data.total).toBe(0);

    const { admin: analyst } = await signedInAdmin(app, { role: 'ANALYST' });
    const auditBefore = await auditRows(app.db, ticketId);
    expectError(
      await support.browser.send('POST', `/tickets/${ticketId}/assign`, { assigneeId: analyst.id }),
      400,
      'TICKET_ASSIGNEE_INVALID',
    );
    expectError(
      await support.browser.send('POST', `/tickets/${ticketId}/assign`, { assigneeId: crypto.randomUUID() }),
      400,
      'TICKET_ASSIGNEE_INVALID',
    );
    expectError(
      await support.browser.send('POST', `/tickets/${crypto.randomUUID()}/close`, { resolution: 'Nothing' }),
      404,
      'TICKET_NOT_FOUND',
    );
    expect(await auditRows(app.db, ticketId)).toEqual(auditBefore);
    const [row] = await app.db.query(`select assignee_admin_id from support_tickets where id = $1`, [
      ticketId,
    ]);
    expect(row).toEqual({ assignee_admin_id: null });
  });

  it('assigning a ticket to the administrator it is assigned to already changes nothing, and records the read of the ticket it answers', async () => {
    const opened = await support.browser.send('POST', '/tickets', {
      subject: 'Assigned twice',
      message: 'Hello',
      companyId,
    });
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.data.ticket.id;
    const assign = (assigneeId: string | null) =>
      support.browser.send('POST', `/tickets/${ticketId}/assign`, { assigneeId });
    expect((await assign(support.admin.id)).status).toBe(200);
    const stored = async () => ({
      ticket: await app.db.query(
        `select status, assignee_admin_id, updated_at from support_tickets where id = $1`,
        [ticketId],
      ),
      audit: await auditRows(app.db, ticketId),
    });
    const before = await stored();

    const readOf = { actor_id: support.admin.id, action: 'tickets.read', details: {} };

    const again = await assign(support.admin.id);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.ticket).toMatchObject({ id: ticketId, assignee: { id: support.admin.id } });
    expect(again.body.data.messages).toHaveLength(1);
    // The ticket is as it was; the only row written is the read of the ticket the answer shows.
    const afterAgain = await stored();
    expect(afterAgain.ticket).toEqual(before.ticket);
    expect(afterAgain.audit.slice(0, -1)).toEqual(before.audit);
    expect(afterAgain.audit.at(-1)).toMatchObject(readOf);

    expect((await assign(null)).status).toBe(200);
    const unassigned = await stored();
    const none = await assign(null);
    expect(none.status, none.text).toBe(200);
    expect(none.body.data.ticket.assignee).toBeNull();
    const afterNone = await stored();
    expect(afterNone.ticket).toEqual(unassigned.ticket);
    expect(afterNone.audit.slice(0, -1)).toEqual(unassigned.audit);
    expect(afterNone.audit.at(-1)).toMatchObject(readOf);
    expect(afterNone.audit.map((row) => row.action)).toEqual([
      'tickets.create',
      'tickets.read',
      'tickets.assign',
      'tickets.read',
      'tickets.read',
      'tickets.assign',
      'tickets.read',
      'tickets.read',
    ]);
  });

  it('tickets.manage without tickets.view: every change answers a receipt, never the traveller or the messages, and records no read', async () => {
    const { admin, browser } = await signedInAdmin(app, {
      role: 'ANALYST',
      grantedPermissions: ['tickets.manage'],
    });
    const opened = await browser.send('POST', '/tickets', {
      subject: 'Called in',
      message: 'The traveller phoned about a lost bag',
      priority: 'HIGH',
      bookingId,
    });
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.data.ticket.id;
    expect(opened.body.data).toEqual({
      ticket: { id: ticketId, status: 'OPEN', subject: 'Called in', priority: 'HIGH' },
    });
    expectError(await browser.get(`/tickets/${ticketId}`), 403, 'PERMISSION_DENIED');

    const step = async (path: string, body: Record<string, unknown>) => {
      const answer = await browser.send('POST', `/tickets/${ticketId}/${path}`, body);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data;
    };
    expect(await step('replies', { message: 'We are looking for it' })).toEqual({
      ticket: { id: ticketId, status: 'ANSWERED' },
    });
    // Assigning it to whom it is assigned to already (nobody, then this administrator): a receipt, and
    // nothing written, no read either.
    const unassigned = await auditRows(app.db, ticketId);
    expect(await step('assign', { assigneeId: null })).toEqual({
      ticket: { id: ticketId, status: 'ANSWERED', assignee: null },
    });
    expect(await auditRows(app.db, ticketId)).toEqual(unassigned);
    const assigned = { ticket: { id: ticketId, status: 'ANSWERED', assignee: { id: admin.id } } };
    expect(await step('assign', { assigneeId: admin.id })).toEqual(assigned);
    const before = await auditRows(app.db, ticketId);
    expect(await step('assign', { assigneeId: admin.id })).toEqual(assigned);
    expect(await auditRows(app.db, ticketId)).toEqual(before);
    expect(await step('close', { resolution: 'Found at the office' })).toEqual({
      ticket: {
        id: ticketId,
        status: 'CLOSED',
        resolution: 'Found at the office',
        closedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    });
    expect((await auditRows(app.db, ticketId)).map((row) => row.action)).toEqual([
      'tickets.create',
      'tickets.reply',
      'tickets.assign',
      'tickets.close',
    ]);
  });

  it('support opens tickets on behalf of a company or a booking, filters them, and needs tickets.manage to', async () => {
    const created = await support.browser.send('POST', '/tickets', {
      subject: 'Company asked for help',
      message: 'Cannot publish the timetable',
      priority: 'HIGH',
      companyId,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.ticket).toMatchObject({
      priority: 'HIGH',
      company: { id: companyId },
      traveller: null,
      openedBy: { kind: 'ADMIN', id: support.admin.id },
    });
    expect((await auditRows(app.db, created.body.data.ticket.id)).map((row) => row.action)).toEqual([
      'tickets.create',
      'tickets.read',
    ]);
    const viaBooking = await support.browser.send('POST', '/tickets', {
      subject: 'Called in',
      message: 'By phone',
      bookingId,
    });
    expect(viaBooking.body.data.ticket).toMatchObject({
      traveller: { id: traveller.userId },
      company: { id: companyId },
    });
    const other = await createCorridor(app.db);
    const mergedAway = await app.signIn();
    const mergedAwayBooking = await bookingOf(mergedAway);
    const [nobodyCompany, nobodyTraveller] = [crypto.randomUUID(), crypto.randomUUID()];
    const ours = [
      support.admin.id,
      bookingId,
      companyId,
      other.company.id,
      mergedAway.userId,
      mergedAwayBooking.bookingId,
      nobodyCompany,
      nobodyTraveller,
    ];
    const before = await ticketCount(...ours);
    expectError(
      await support.browser.send('POST', '/tickets', {
        subject: 'Mismatch',
        message: 'x',
        bookingId,
        companyId: other.company.id,
      }),
      400,
      'TICKET_SUBJECT_MISMATCH',
    );
    expectError(
      await support.browser.send('POST', '/tickets', {
        subject: 'Nobody',
        message: 'x',
        companyId: nobodyCompany,
      }),
      404,
      'COMPANY_NOT_FOUND',
    );
    expectError(
      await support.browser.send('POST', '/tickets', {
        subject: 'Nobody',
        message: 'x',
        travellerId: nobodyTraveller,
      }),
      404,
      'TRAVELLER_NOT_FOUND',
    );
    // An account a phone merge disabled: no one signs in to it, so no one would see the ticket.
    await app.db.query(`update users set status = 'DISABLED' where id = $1`, [mergedAway.userId]);
    expectError(
      await support.browser.send('POST', '/tickets', {
        subject: 'Call back about a refund',
        message: 'Traveller phoned in',
        travellerId: mergedAway.userId,
      }),
      404,
      'TRAVELLER_NOT_FOUND',
    );
    // Nor through a booking it still owns (a merge moves its bookings to the surviving account).
    expectError(
      await support.browser.send('POST', '/tickets', {
        subject: 'Call back about a refund',
        message: 'Traveller phoned in',
        bookingId: mergedAwayBooking.bookingId,
      }),
      404,
      'TRAVELLER_NOT_FOUND',
    );
    expect(await ticketCount(...ours)).toBe(before);

    const high = await support.browser.get(`/tickets?companyId=${companyId}&priority=HIGH&assignee=none`);
    expect(high.body.data.items.map((item: { id: string }) => item.id)).toEqual([
      created.body.data.ticket.id,
    ]);
    expectError(await support.browser.get('/tickets?assignee=someone'), 400, 'VALIDATION_FAILED');
    // An offset PostgreSQL cannot hold (found by schemathesis: it answered 500) is refused at the edge.
    const farOffset = encodeURIComponent('0104-01-01T00:00:00-18:19');
    expectError(await support.browser.get(`/tickets?from=${farOffset}`), 400, 'VALIDATION_FAILED');

    const { admin: analyst, browser: analystBrowser } = await signedInAdmin(app, { role: 'ANALYST' });
    const denied = await analystBrowser.get('/tickets');
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'tickets.view' });
    expect(
      await app.db.query(`select 1 from audit_log where actor_id = $1 and action like 'tickets.%'`, [
        analyst.id,
      ]),
    ).toEqual([]);
  });

  it('support disabled or demoted while their change of a ticket is in flight is refused (401, 403) and writes nothing', async () => {
    const { browser: boss } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const opened = await boss.send('POST', '/tickets', {
      subject: 'Refund question',
      message: 'Hello',
      companyId,
    });
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.data.ticket.id;
    const ticketState = async () => ({
      ticket: await app.db.query(
        `select status, assignee_admin_id, resolution from support_tickets where id = $1`,
        [ticketId],
      ),
      messages: await app.db.query(`select id from support_ticket_messages where ticket_id = $1`, [ticketId]),
      audit: (await auditRows(app.db, ticketId)).map((row) => row.action),
    });
    const before = await ticketState();

    const demoted = await signedInAdmin(app, { role: 'SUPPORT' });
    const lost = await writeWhileAccountChanges(app, boss, demoted.admin.id, { role: 'ANALYST' }, () =>
      demoted.browser.send('POST', `/tickets/${ticketId}/replies`, { message: 'On it' }),
    );
    expect(lost.change.status, lost.change.text).toBe(200);
    expectError(lost.write, 403, 'PERMISSION_DENIED');
    expect(lost.write.body.details).toEqual({ permission: 'tickets.manage' });

    const disabled = await signedInAdmin(app, { role: 'SUPPORT' });
    const gone = await writeWhileAccountChanges(app, boss, disabled.admin.id, { status: 'DISABLED' }, () =>
      disabled.browser.send('POST', `/tickets/${ticketId}/close`, { resolution: 'Closed by someone gone' }),
    );
    expect(gone.change.status, gone.change.text).toBe(200);
    expectError(gone.write, 401, 'INVALID_CREDENTIAL');
    expect(await ticketState()).toEqual(before);
  });

  it("support's reply that waited while the traveller wrote comes after it, in the messages and in support's list", async () => {
    const writer = await app.signIn();
    const own = await bookingOf(writer);
    const openOne = async (subject: string) => {
      const opened = await open(app, writer, { bookingId: own.bookingId, subject, message: 'First message' });
      expect(opened.status, opened.text).toBe(201);
      return opened.body.data.id as string;
    };
    const [answered, other] = [await openOne('Seat question'), await openOne('Other question')];
    const reply = await writeWaitingForAccount(
      app,
      support.admin.id,
      () => support.browser.send('POST', `/tickets/${answered}/replies`, { message: 'Support reply' }),
      async () => {
        for (const ticketId of [answered, other]) {
          const written = await write(writer, ticketId, 'Traveller follow-up');
          expect(written.status, written.text).toBe(200);
        }
      },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data.ticket.status).toBe('ANSWERED');

    const inOrder = ['First message', 'Traveller follow-up', 'Support reply'];
    const seen = await app.request(`/api/support-tickets/${answered}`, {
      headers: { Cookie: writer.cookie },
    });
    const detail = await support.browser.get(`/tickets/${answered}`);
    const listed = await support.browser.get(`/tickets?travellerId=${writer.userId}`);
    expect({
      traveller: seen.body.data.messages.map((message: { body: string }) => message.body),
      support: detail.body.data.messages.map((message: { body: string }) => message.body),
      mostRecentlyChangedFirst: listed.body.data.items.map((item: { id: string }) => item.id),
    }).toEqual({ traveller: inOrder, support: inOrder, mostRecentlyChangedFirst: [answered, other] });
  });

  it('finds a ticket by its subject typed another way (ه for ة, ا for أ, harakat, any case), and a wildcard only as itself', async () => {
    const writer = await app.signIn();
    const own = await bookingOf(writer);
    const openOne = async (subject: string) => {
      const opened = await open(app, writer, { bookingId: own.bookingId, subject, message: 'مرحبا' });
      expect(opened.status, opened.text).toBe(201);
      return opened.body.data.id as string;
    };
    const refund = await openOne('استرجاع أجرة الرحلة');
    const seat = await openOne('Seat 100% broken');
    const found = async (search: string) => {
      const listed = await support.browser.get(
        `/tickets?travellerId=${writer.userId}&search=${encodeURIComponent(search)}`,
      );
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.total, search).toBe(listed.body.data.items.length);
      return listed.body.data.items.map((item: { id: string }) => item.id);
    };
    for (const typed of ['أجرة', 'اجره', 'الرِّحلة', 'استرجاع  اجرة']) {
      expect(await found(typed), typed).toEqual([refund]);
    }
    expect(await found('SEAT 100%')).toEqual([seat]);
    expect(await found('100_')).toEqual([]);
    expect(await found('%')).toEqual([seat]);
  });

  it('limits how many tickets and messages a traveller sends', async () => {
    const owner = await limited.signIn();
    const own = await bookingOf(owner);
    expect(
      (await open(limited, owner, { bookingId: own.bookingId, subject: 'First', message: 'One' })).status,
    ).toBe(201);
    expectError(
      await open(limited, owner, { bookingId: own.bookingId, subject: 'Second', message: 'Two' }),
      429,
      'RATE_LIMITED',
    );
  });
});
