/**
 * Whether a traveller's leg of a trip still boards: the one rule the ticket documents
 * (db/queries/documents.ts) and re-issuing a credential (db/writes/tickets.ts) read, as SQL over
 * the trip and the leg's boarding and alighting stop calls, named by their aliases.
 *
 * A trip's stop-call times are the plan. A trip runs late by its announced delay (MARK_DELAYED
 * keeps waiting to board, and the delay stays on the trip after it leaves), or by how late it
 * actually left its first call when that is more, so a call is reached at its planned time plus
 * that lateness. By status: ARRIVED, COMPLETED and CANCELLED end every leg; DEPARTED ends a leg
 * boarding at the trip's first call (the bus left it), while a leg boarding at a later call keeps
 * boarding until the bus has (by the plan plus the lateness) left that call.
 */
export interface LegAliases {
  /** The trips row. */
  trip: string;
  /** The trip_stop_calls row the leg boards at. */
  board: string;
  /** The trip_stop_calls row the leg alights at. */
  alight: string;
}

/** SQL interval: how late trip `t` runs, never less than nothing. */
const lateness = (t: string) =>
  `greatest(interval '0', ${t}.delay_minutes * interval '1 minute',
     ${t}.actual_departure_at - (select f.departure_at from trip_stop_calls f where f.trip_id = ${t}.id
                                  order by f.sequence limit 1))`;

/**
 * SQL timestamptz: when trip `t` is expected to leave a call planned to leave at `plannedSql`
 * (a stop call's departure_at, or an expression of one): the plan plus how late the trip runs. Before
 * DEPART this is the plan plus the announced delay; the traveller's cancel cut-off and modify
 * 6-hour rule (db/writes/booking-changes) measure from it.
 */
export function expectedDepartureSql(t: string, plannedSql: string): string {
  return `(${plannedSql} + ${lateness(t)})`;
}

/** SQL boolean: the leg boards at a call after the trip's first. */
const boardsAfterFirstCall = ({ trip, board }: Omit<LegAliases, 'alight'>) =>
  `exists (select 1 from trip_stop_calls f where f.trip_id = ${trip}.id and f.sequence < ${board}.sequence)`;

/**
 * SQL boolean: the bus has not yet left the leg's boarding call, so the leg's traveller may still
 * get on: the trip has not left its first call (or has, and the leg boards further on), and the
 * boarding call's planned departure plus the trip's lateness is still ahead.
 */
export function legStillBoardsSql(legs: Omit<LegAliases, 'alight'>): string {
  const { trip, board } = legs;
  return `((${trip}.status in ('SCHEDULED', 'BOARDING', 'DELAYED')
            or (${trip}.status = 'DEPARTED' and ${boardsAfterFirstCall(legs)}))
           and ${expectedDepartureSql(trip, `${board}.departure_at`)} > now())`;
}

/**
 * SQL boolean: the leg's boarding credential has expired (SPEC "Document ticket validity"). The
 * trip arrived, completed or was cancelled; or it departed and the bus has left the leg's boarding
 * call (legStillBoardsSql); or, before it departs, the alighting call's planned arrival plus the
 * announced delay has passed.
 */
export function legOverSql(legs: LegAliases): string {
  const { trip, alight } = legs;
  return `(${trip}.status in ('ARRIVED', 'COMPLETED', 'CANCELLED')
           or (${trip}.status = 'DEPARTED' and not ${legStillBoardsSql(legs)})
           or ${alight}.arrival_at + ${lateness(trip)} < now())`;
}
