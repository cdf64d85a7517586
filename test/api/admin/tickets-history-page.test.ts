import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin, type AdminBrowser } from './helpers.js';
import { everyPage } from '../../support/pages.js';

/**
 * Support's tickets (GET /tickets) a page at a time: most recently changed first, tickets changed
 * at the same instant by id, so a page ending among them neither repeats nor skips one; a status
 * narrows them with the total of the matches on every page, a page past the end too; each ticket
 * of a page carries its own traveller, company and messages.
 */
describe('GET /admin/api/tickets: the history a page at a time', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let browser: AdminBrowser;
  let companyId: string;
  /** Every ticket of the company: id, last change, status, message count, traveller. */
  const tickets: { id: string; updatedAt: string; status: string; messages: number; travellerId: string }[] =
    [];

  interface Listed {
    id: string;
    status: string;
    updatedAt: string;
    messageCount: number;
    traveller: { id: string } | null;
    company: { id: string; name: string } | null;
  }

  /** The order the list promises: changed latest first, then id. */
  const inListOrder = (rows: typeof tickets) =>
    [...rows].sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );

  const list = async (query: string) => {
    const response = await browser.get(`/tickets?companyId=${companyId}&${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.data as { items: Listed[]; total: number; limit: number; offset: number };
  };

  /** Every page of `query` with `limit`, offset by offset until one comes back short. */
  const allPages = (query: string, limit: number) =>
    everyPage(
      (paging) => list(`${query}${paging}`),
      (page) => page.items,
      limit,
    );

  beforeAll(async () => {
    companyId = (await createCompany(app.db)).id;
    // Seven tickets changed at three instants (3, 2, 2): a page of 2 or 3 ends inside a group.
    const instants = [3, 2, 1].map((hours) => new Date(Date.now() - hours * 3_600_000).toISOString());
    for (let index = 0; index < 7; index++) {
      const traveller = await app.signIn();
      const status = index % 3 === 0 ? 'ANSWERED' : 'OPEN';
      const updatedAt = instants[index < 3 ? 0 : index < 5 ? 1 : 2]!;
      const [ticket] = await app.db.query<{ id: string }>(
        `insert into support_tickets (subject, status, opened_by_kind, opened_by, traveller_user_id, company_id,
                                      created_at, updated_at)
         values ($1, $2, 'TRAVELLER', $3, $3, $4, $5::timestamptz - interval '1 day', $5) returning id`,
        [`Lost bag ${index}`, status, traveller.userId, companyId, updatedAt],
      );
      const messages = 1 + (index % 3);
      await app.db.query(
        `insert into support_ticket_messages (ticket_id, author_kind, author_id, body, created_at)
         select $1, 'TRAVELLER', $2, 'Message ' || k, $3::timestamptz - k * interval '1 minute'
           from generate_series(1, $4::int) k`,
        [ticket!.id, traveller.userId, updatedAt, messages],
      );
      tickets.push({ id: ticket!.id, updatedAt, status, messages, travellerId: traveller.userId });
    }
    ({ browser } = await signedInAdmin(app, { role: 'SUPPORT' }));
  });

  it('pages through tickets changed together without repeating or skipping one, each with its own messages', async () => {
    const expected = inListOrder(tickets);
    for (const limit of [3, 2, 7]) {
      const pages = await allPages('', limit);
      const shown = pages.flatMap((page) => page.items);
      expect(
        shown.map((ticket) => ticket.id),
        `limit ${limit}`,
      ).toEqual(expected.map((ticket) => ticket.id));
      expect(shown.map((ticket) => [ticket.messageCount, ticket.traveller?.id, ticket.company?.id])).toEqual(
        expected.map((ticket) => [ticket.messages, ticket.travellerId, companyId]),
      );
      for (const [index, page] of pages.entries()) {
        expect(page).toMatchObject({ limit, offset: index * limit, total: 7 });
      }
    }
    const pastTheEnd = await list('limit=5&offset=10');
    expect(pastTheEnd).toMatchObject({ items: [], total: 7 });
  });

  it('narrows by status with the total of the matches on every page', async () => {
    const answered = inListOrder(tickets.filter((ticket) => ticket.status === 'ANSWERED'));
    const pages = await allPages('status=ANSWERED&', 2);
    expect(pages.flatMap((page) => page.items.map((ticket) => ticket.id))).toEqual(
      answered.map((ticket) => ticket.id),
    );
    for (const page of pages) expect(page.total).toBe(3);
  });
});
