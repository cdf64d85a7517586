import type { PoolClient } from 'pg';
import { DEMO_ADMINS } from './demo-admins.js';
import { demoCompany, demoUuid, DEMO_TRAVELLERS } from './demo-identities.js';

/**
 * What a first start of the administration console shows: Zeinobia Travel warned (its OWNER sees
 * the warning in the dashboard), Al-Furat's suspension in its history, an open incident and a
 * resolved one, a maintenance window that is over, pre-launch waitlist sign-ups and support
 * tickets in every state. Fixed ids and "on conflict do nothing": a rerun adds nothing, and
 * nothing here undoes a change made in the console. Times are relative to the first run.
 */
interface ConsoleAdmins {
  superAdmin: string | null;
  support: string | null;
}

/** The demo administrators' ids as the database has them (an account may predate the seed's ids). */
async function consoleAdmins(client: PoolClient): Promise<ConsoleAdmins> {
  const email = (role: string) => DEMO_ADMINS.find((admin) => admin.role === role)!.email;
  const { rows } = await client.query<{ email: string; id: string }>(
    `select lower(email) as email, id from admins where lower(email) = any($1::text[])`,
    [[email('SUPER_ADMIN'), email('SUPPORT')]],
  );
  const idOf = (role: string) => rows.find((row) => row.email === email(role))?.id ?? null;
  return { superAdmin: idOf('SUPER_ADMIN'), support: idOf('SUPPORT') };
}

const ACTIONS = [
  {
    id: demoUuid('company-action', 'zeinobia', 'warn'),
    companyId: demoCompany('zeinobia').id,
    action: 'WARN',
    reason:
      'Travellers report departures from Homs to Tartus leaving 40 minutes late; publish the real times.',
    before: { status: 'ACTIVE', verified: true },
    after: { status: 'ACTIVE', verified: true },
    daysAgo: 2,
  },
  {
    id: demoUuid('company-action', 'furat', 'suspend'),
    companyId: demoCompany('furat').id,
    action: 'SUSPEND',
    reason: 'Operating licence expired; suspended until the renewed licence is on file.',
    before: { status: 'ACTIVE', verified: true },
    after: { status: 'SUSPENDED', verified: true },
    daysAgo: 5,
  },
];

async function seedCompanyHistory(client: PoolClient, admins: ConsoleAdmins): Promise<void> {
  await client.query(
    `insert into company_admin_actions (id, company_id, action, reason, admin_id, standing_before, standing_after, created_at)
     select id, company_id, action, reason, $2, before, after, now() - make_interval(days => days_ago)
     from jsonb_to_recordset($1::jsonb)
       as r(id uuid, company_id uuid, action text, reason text, before jsonb, after jsonb, days_ago int)
     on conflict (id) do nothing`,
    [
      JSON.stringify(
        ACTIONS.map(({ daysAgo, companyId, ...row }) => ({
          ...row,
          company_id: companyId,
          days_ago: daysAgo,
        })),
      ),
      admins.superAdmin,
    ],
  );
}

async function seedIncidentsAndMaintenance(client: PoolClient, admins: ConsoleAdmins): Promise<void> {
  await client.query(
    `insert into incidents (id, title, description, severity, status, resolution, started_at, resolved_at, created_by)
     values ($1, 'SMS codes arrive late', 'Some travellers wait several minutes for their sign-in code; the SMS provider is investigating.',
             'MINOR', 'MONITORING', null, now() - interval '3 hours', null, $3),
            ($2, 'Ticket PDFs failed to render', 'Downloads of booking confirmations answered 500 for 20 minutes.',
             'MAJOR', 'RESOLVED', 'A full disk on a worker; space freed and an alert added.',
             now() - interval '4 days', now() - interval '4 days' + interval '20 minutes', $3)
     on conflict (id) do nothing`,
    [demoUuid('incident', 'sms-delays'), demoUuid('incident', 'pdf-renders'), admins.superAdmin],
  );
  await client.query(
    `insert into maintenance_windows (id, message, starts_at, ends_at, created_by)
     values ($1, 'Database upgrade: bookings paused for about an hour.',
             date_trunc('hour', now()) - interval '7 days' + interval '2 hours',
             date_trunc('hour', now()) - interval '7 days' + interval '3 hours', $2)
     on conflict (id) do nothing`,
    [demoUuid('maintenance', 'database-upgrade'), admins.superAdmin],
  );
}

const WAITLIST = [
  'lina.haddad@example.com',
  'omar.khatib@example.com',
  'sara.nasser@example.com',
  'yousef.ali@example.com',
];

async function seedWaitlist(client: PoolClient): Promise<void> {
  await client.query(
    `insert into waitlist_entries (id, email, created_at)
     select id, email, now() - make_interval(days => n) from jsonb_to_recordset($1::jsonb) as r(id uuid, email text, n int)
     on conflict do nothing`,
    [JSON.stringify(WAITLIST.map((email, n) => ({ id: demoUuid('waitlist', email), email, n: n + 1 })))],
  );
}

const TICKETS = [
  {
    key: 'refund-question',
    subject: 'Refund for a cancelled trip',
    status: 'OPEN',
    priority: 'HIGH',
    company: 'qadmous',
    messages: [['TRAVELLER', 'My Damascus – Aleppo trip was cancelled; how do I get my cash back?']],
  },
  {
    key: 'seat-change',
    subject: 'Can I change my seat?',
    status: 'ANSWERED',
    priority: 'NORMAL',
    company: 'ahliah',
    messages: [
      ['TRAVELLER', 'I booked seat A3 but would like a window seat.'],
      [
        'ADMIN',
        'Window seats are the A and D columns; cancel and book again more than 2 hours before departure.',
      ],
    ],
  },
  {
    key: 'lost-ticket',
    subject: 'Lost my phone with the ticket',
    status: 'CLOSED',
    priority: 'NORMAL',
    company: 'sahel',
    messages: [
      ['TRAVELLER', 'My phone was stolen with the ticket on it.'],
      [
        'ADMIN',
        'Sign in on a new phone and re-issue the ticket from your booking; the old QR stops working.',
      ],
    ],
  },
] as const;

async function seedTickets(client: PoolClient, admins: ConsoleAdmins): Promise<void> {
  const { rows } = await client.query<{ id: string }>(`select id from users where phone = $1`, [
    DEMO_TRAVELLERS[0]!.phone,
  ]);
  const traveller = rows[0]?.id;
  if (!traveller) return;
  for (const ticket of TICKETS) {
    const ticketId = demoUuid('support-ticket', ticket.key);
    await client.query(
      `insert into support_tickets (id, subject, status, priority, opened_by_kind, opened_by, traveller_user_id, company_id,
                                    assignee_admin_id, resolution, closed_at, created_at, updated_at)
       values ($1, $2, $3, $4, 'TRAVELLER', $5, $5, $6, $7, $8, case when $3 = 'CLOSED' then now() end,
               now() - interval '1 day', now())
       on conflict (id) do nothing`,
      [
        ticketId,
        ticket.subject,
        ticket.status,
        ticket.priority,
        traveller,
        demoCompany(ticket.company).id,
        ticket.status === 'OPEN' ? null : admins.support,
        ticket.status === 'CLOSED' ? 'Ticket re-issued from the new phone.' : null,
      ],
    );
    for (const [index, [kind, body]] of ticket.messages.entries()) {
      await client.query(
        `insert into support_ticket_messages (id, ticket_id, author_kind, author_id, body, created_at)
         values ($1, $2, $3, $4, $5, now() - interval '1 day' + make_interval(mins => $6))
         on conflict (id) do nothing`,
        [
          demoUuid('support-message', ticket.key, String(index)),
          ticketId,
          kind,
          kind === 'ADMIN' ? admins.support : traveller,
          body,
          index * 30,
        ],
      );
    }
  }
}

/** Seeds the console's demo data; runs after the companies, travellers and administrators exist. */
export async function seedDemoAdminConsole(client: PoolClient): Promise<void> {
  const admins = await consoleAdmins(client);
  await seedCompanyHistory(client, admins);
  await seedIncidentsAndMaintenance(client, admins);
  await seedWaitlist(client);
  await seedTickets(client, admins);
}
