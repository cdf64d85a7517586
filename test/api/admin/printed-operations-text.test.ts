import { describe, expect, it, onTestFinished } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { NOT_ONE_LINE_TEXTS, PROSE, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';
import { expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * Text the administration writes for people to read: an incident's title, description and
 * resolution; a maintenance window's message (the notice travellers and companies get with a write
 * refused 503 MAINTENANCE); a support ticket's subject, messages and resolution (the traveller reads
 * them at /api/support-tickets). None may hold a control or bidirectional-override character, which
 * would make one text read as another; one-line fields refuse line breaks too, prose keeps line
 * breaks and tabs. A refusal is 400 VALIDATION_FAILED naming the field, and changes nothing.
 */

/**
 * Sends `write(text)` with each text, expects each refused as a bad `field`, and expects `rows`
 * (everything the writes could change) and the administrator's audit rows as they were.
 */
async function expectEachRefused(
  db: Database,
  adminId: string,
  texts: Record<string, string>,
  field: string,
  write: (text: string) => Promise<TestResponse>,
  rows: () => Promise<unknown>,
) {
  const snapshot = async () => ({
    rows: await rows(),
    audit: await db.query(`select id from audit_log where actor_id = $1 order by id`, [adminId]),
  });
  const before = await snapshot();
  for (const [what, text] of Object.entries(texts)) {
    const refused = await write(text);
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.details.issues, `${field}: ${what}`).toContainEqual(
      expect.objectContaining({ path: `body.${field}` }),
    );
  }
  expect(await snapshot()).toEqual(before);
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('administration: text people read refuses control and bidirectional-override characters', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const incidentRows = (db: Database, createdBy: string) =>
    db.query(
      `select id, title, description, status, resolution, resolved_at, updated_at from incidents
        where created_by = $1 order by id`,
      [createdBy],
    );

  it('an incident: title (one line), description and resolution (prose), on opening, changing and resolving', async () => {
    const { admin, browser } = await signedInAdmin(app);
    const rows = () => incidentRows(app.db, admin.id);
    const open = (fields: Record<string, string>) =>
      browser.send('POST', '/incidents', { title: 'Card payments', severity: 'MINOR', ...fields });
    const opened = await open({ description: 'Started at noon' });
    expect(opened.status, opened.text).toBe(201);
    const id: string = opened.body.data.id;

    const oneLine = { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS };
    await expectEachRefused(app.db, admin.id, oneLine, 'title', (title) => open({ title }), rows);
    await expectEachRefused(
      app.db,
      admin.id,
      UNPRINTABLE_TEXTS,
      'description',
      (description) => open({ description }),
      rows,
    );
    const change = (fields: Record<string, string>) => browser.send('PATCH', `/incidents/${id}`, fields);
    await expectEachRefused(app.db, admin.id, oneLine, 'title', (title) => change({ title }), rows);
    await expectEachRefused(
      app.db,
      admin.id,
      UNPRINTABLE_TEXTS,
      'description',
      (description) => change({ description }),
      rows,
    );
    const resolve = (resolution: string) => browser.send('POST', `/incidents/${id}/resolve`, { resolution });
    await expectEachRefused(app.db, admin.id, UNPRINTABLE_TEXTS, 'resolution', resolve, rows);

    // Prose keeps its line breaks and tabs, as written.
    expect((await change({ description: PROSE })).body.data.description).toBe(PROSE);
    const resolved = await resolve(PROSE);
    expect(resolved.status, resolved.text).toBe(200);
    expect(await rows()).toMatchObject([{ description: PROSE, resolution: PROSE, status: 'RESOLVED' }]);
  });

  it("a maintenance window's message (one line), on scheduling and changing", async () => {
    const { admin, browser } = await signedInAdmin(app);
    const rows = () =>
      app.db.query(
        `select id, message, starts_at, ends_at, updated_at from maintenance_windows where created_by = $1`,
        [admin.id],
      );
    // Far ahead, so the window is never in force while other tests write.
    const times = { startsAt: inHours(24 * 30), endsAt: inHours(24 * 30 + 1) };
    const scheduled = await browser.send('POST', '/maintenance', { message: 'Database upgrade', ...times });
    expect(scheduled.status, scheduled.text).toBe(201);
    const id: string = scheduled.body.data.id;
    onTestFinished(async () => {
      await browser.send('POST', `/maintenance/${id}/cancel`, { reason: 'Test over' });
    });

    const texts = { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS };
    const schedule = (message: string) => browser.send('POST', '/maintenance', { message, ...times });
    await expectEachRefused(app.db, admin.id, texts, 'message', schedule, rows);
    const change = (message: string) => browser.send('PATCH', `/maintenance/${id}`, { message });
    await expectEachRefused(app.db, admin.id, texts, 'message', change, rows);
    expect(await rows()).toMatchObject([{ id, message: 'Database upgrade' }]);
  });

  describe('a support ticket', () => {
    const ticketRows = (db: Database, openedBy: string) =>
      db.query(
        `select t.id, t.subject, t.status, t.resolution, t.closed_at, t.updated_at,
                (select array_agg(m.body order by m.created_at, m.id) from support_ticket_messages m
                  where m.ticket_id = t.id) as messages
           from support_tickets t where t.opened_by = $1 order by t.id`,
        [openedBy],
      );
    const openTicket = async (browser: AdminBrowser, fields: Record<string, string> = {}) =>
      browser.send('POST', '/tickets', { subject: 'Refund question', message: 'Hello', ...fields });

    it('subject (one line) and first message (prose), on opening', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const rows = () => ticketRows(app.db, admin.id);
      const subjects = { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS };
      await expectEachRefused(
        app.db,
        admin.id,
        subjects,
        'subject',
        (subject) => openTicket(browser, { subject }),
        rows,
      );
      await expectEachRefused(
        app.db,
        admin.id,
        UNPRINTABLE_TEXTS,
        'message',
        (message) => openTicket(browser, { message }),
        rows,
      );
      expect(await rows()).toEqual([]);
    });

    it('a reply and the resolution (prose)', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const rows = () => ticketRows(app.db, admin.id);
      const opened = await openTicket(browser);
      expect(opened.status, opened.text).toBe(201);
      const id: string = opened.body.data.ticket.id;

      const reply = (message: string) => browser.send('POST', `/tickets/${id}/replies`, { message });
      await expectEachRefused(app.db, admin.id, UNPRINTABLE_TEXTS, 'message', reply, rows);
      const close = (resolution: string) => browser.send('POST', `/tickets/${id}/close`, { resolution });
      await expectEachRefused(app.db, admin.id, UNPRINTABLE_TEXTS, 'resolution', close, rows);

      expect((await reply(PROSE)).status).toBe(200);
      expect((await close(PROSE)).status).toBe(200);
      expect(await rows()).toMatchObject([
        { subject: 'Refund question', status: 'CLOSED', resolution: PROSE, messages: ['Hello', PROSE] },
      ]);
    });
  });
});
