import type { RevocationCursor, TicketBoardingState } from '../../domain/boarding-credential.js';
import type { TicketStatus } from '../../domain/documents.js';
import type { Database } from '../orm.js';
import { legOverSql, tripStatusAtSql } from './leg-boarding.js';

/**
 * Reads behind the driver app's credential endpoints: published keys, revocations, tickets.
 * Instants arrive from the pool as PostgreSQL timestamptz text.
 */

export interface PublishedKeyRow {
  key_id: string;
  algorithm: string;
  public_key: string;
  status: 'ACTIVE' | 'RETIRED';
  created_at: string;
  retired_at: string | null;
}

/** Every signing key ever used, newest first: retired keys stay so older tickets keep verifying. */
export function listSigningKeys(db: Database): Promise<PublishedKeyRow[]> {
  return db.query<PublishedKeyRow>(
    `select key_id, algorithm, public_key, status, created_at, retired_at
     from signing_keys order by created_at desc, key_id`,
  );
}

export async function findSigningKey(db: Database, keyId: string): Promise<PublishedKeyRow | undefined> {
  const [row] = await db.query<PublishedKeyRow>(
    `select key_id, algorithm, public_key, status, created_at, retired_at from signing_keys where key_id = $1`,
    [keyId],
  );
  return row;
}

/** A revoked credential, as the revocation list publishes it. */
export interface Revocation {
  ticketId: string;
  keyId: string | null;
  revokedAt: Date;
  /** revoked_at to the microsecond (ISO 8601 UTC), where a page ending at this entry resumes. */
  revokedAtExact: string;
}

/** timestamptz arrives as PostgreSQL text. */
interface RevocationRow {
  ticket_id: string;
  key_id: string | null;
  revoked_at: string;
  revoked_at_exact: string;
}

const toRevocation = (row: RevocationRow): Revocation => ({
  ticketId: row.ticket_id,
  keyId: row.key_id,
  revokedAt: new Date(row.revoked_at),
  revokedAtExact: row.revoked_at_exact,
});

/** Where a page starts: strictly after an entry in list order (a keyset on the unique (revoked_at, ticket_id)), or at or after an instant. */
function pageStart(from: RevocationCursor | null): { where: string; parameters: unknown[] } {
  if (!from) return { where: '', parameters: [] };
  if (from.afterTicketId) {
    return {
      where: 'and (revoked_at, ticket_id) > ($3::timestamptz, $4::uuid)',
      parameters: [from.at, from.afterTicketId],
    };
  }
  return { where: 'and revoked_at >= $3::timestamptz', parameters: [from.at] };
}

/**
 * The statement of one page of a company's revocations and its parameters: its tickets' entries
 * only (another company's would tell it that company's cancellations), from `from` (all when null),
 * oldest first (ticket id among equal instants), at most `limit`. The index on (company_id,
 * revoked_at, ticket_id) serves it in that order, so a page reads its own rows and never sorts
 * the company's whole list nor passes over other companies' entries.
 */
export function revocationPage(
  companyId: string,
  from: RevocationCursor | null,
  limit: number,
): [string, unknown[]] {
  const start = pageStart(from);
  return [
    `select ticket_id, key_id, revoked_at,
            to_char(revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as revoked_at_exact
     from credential_revocations
     where company_id = $1 ${start.where}
     order by revoked_at, ticket_id
     limit $2`,
    [companyId, limit, ...start.parameters],
  ];
}

/**
 * The company's revocations from `from` (all when null), oldest first (ticket id among equal
 * instants), at most `limit`, with `asOf`: the database's clock at the statement (the instant the
 * revoked_at stamps are compared with, so the restart point never depends on the API host's clock).
 */
export async function listRevocations(
  db: Database,
  companyId: string,
  from: RevocationCursor | null,
  limit: number,
): Promise<{ asOf: Date; revocations: Revocation[] }> {
  const [statement, parameters] = revocationPage(companyId, from, limit);
  const rows = await db.query<{ as_of: string } & Partial<RevocationRow>>(
    `with page as (${statement})
     select statement_timestamp() as as_of, page.*
     from (select) as one left join page on true
     order by page.revoked_at, page.ticket_id`,
    parameters,
  );
  const revocations = rows.filter((row) => row.ticket_id != null) as RevocationRow[];
  return { asOf: new Date(rows[0]!.as_of), revocations: revocations.map(toRevocation) };
}

export interface TicketAtBoarding {
  id: string;
  trip_id: string;
  traveller_name: string;
  seat_number: string;
  leg_sequence: number;
  status: TicketStatus;
  signature: string | null;
  boarding_authorized: boolean;
  revoked: boolean;
  /** Its QR has expired: the bus left the leg's boarding stop, or the trip is over (ticketQrExpiredSql). */
  expired: boolean;
}

/** A ticket row's state as the credential checks read it (verify's credentialRefusal, the scan's scanRefusal). */
export function boardingStateOf<Status extends string>(ticket: {
  status: Status;
  boarding_authorized: boolean;
  revoked: boolean;
  signature: string | null;
  expired: boolean;
}): TicketBoardingState & { status: Status; expired: boolean } {
  return {
    status: ticket.status,
    boardingAuthorized: ticket.boarding_authorized,
    revoked: ticket.revoked,
    signature: ticket.signature,
    expired: ticket.expired,
  };
}

/**
 * SQL boolean: ticket `t`'s QR has expired, by the rule its ticket document follows (legOverSql over
 * the trip and the stop calls of the leg it is for); true when no leg is found (it boards nowhere).
 * The one expression behind the driver app's verify (EXPIRED) and its scan at the door, which must
 * refuse exactly the credentials verify calls EXPIRED at the scan's moment. Judged now, on the
 * trip's current status, unless `at` (an SQL timestamptz no later than now) gives the moment: a scan
 * queued offline is judged as verify would have answered then, on the trip's status at that moment
 * (tripStatusAtSql); at now, that is the current status, the same answer verify gives.
 */
export function ticketQrExpiredSql(t: string, at?: string): string {
  const legs = { trip: 'qtr', board: 'qbc', alight: 'qac' };
  const over = at === undefined ? legOverSql(legs) : legOverSql(legs, { at, status: 'qst.status' });
  const statusThen =
    at === undefined ? '' : `cross join lateral (select ${tripStatusAtSql('qtr', at)} as status) qst`;
  return `coalesce((
    select ${over}
    from journey_legs ql
    join trips qtr on qtr.id = ${t}.trip_id
    join trip_stop_calls qbc on qbc.id = ql.board_stop_call_id
    join trip_stop_calls qac on qac.id = ql.alight_stop_call_id
    ${statusThen}
    where ql.journey_id = ${t}.journey_id and ql.sequence = ${t}.leg_sequence), true)`;
}

/**
 * A ticket of the company as the driver sees it at the door: its current status, whether it was
 * revoked, and whether its QR has expired (ticketQrExpiredSql). Another company's ticket is none.
 */
export async function findTicketAtBoarding(
  db: Database,
  ticketId: string,
  companyId: string,
): Promise<TicketAtBoarding | undefined> {
  const [row] = await db.query<TicketAtBoarding>(
    `select t.id, t.trip_id, t.traveller_name, t.seat_number, t.leg_sequence, t.status, t.signature,
            t.boarding_authorized, r.ticket_id is not null as revoked,
            ${ticketQrExpiredSql('t')} as expired
     from journey_tickets t
     left join credential_revocations r on r.ticket_id = t.id
     where t.id = $1 and t.company_id = $2`,
    [ticketId, companyId],
  );
  return row;
}

/** The company operating a trip and its assigned driver, or undefined when there is no such trip. */
export async function tripCrew(
  db: Database,
  tripId: string,
): Promise<{ companyId: string; driverId: string | null } | undefined> {
  const [row] = await db.query<{ company_id: string; driver_id: string | null }>(
    'select company_id, driver_id from trips where id = $1',
    [tripId],
  );
  return row && { companyId: row.company_id, driverId: row.driver_id };
}
