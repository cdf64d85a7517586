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
 *
 * The rule is judged at a moment (LegMoment): now and the trip's current status for every read of a
 * credential as it stands (the documents, re-issue, the driver app's verify), or a past moment and
 * the trip's status then (tripStatusAtSql) for a scan the driver app queued offline.
 */
export interface LegAliases {
  /** The trips row. */
  trip: string;
  /** The trip_stop_calls row the leg boards at. */
  board: string;
  /** The trip_stop_calls row the leg alights at. */
  alight: string;
}

/**
 * The moment the rule is judged at: `at`, an SQL timestamptz no later than now, and `status`, an SQL
 * text of the trip's status at that moment. The trip's lateness (its delay_minutes and
 * actual_departure_at) is read as the trip row knows it now, at any moment: a delay announced, or a
 * departure, after a past moment counts as if known then.
 */
export interface LegMoment {
  at: string;
  status: string;
}

/** Now and trip `trip`'s current status: the moment every read of a credential as it stands judges at. */
const currentMoment = (trip: string): LegMoment => ({ at: 'now()', status: `${trip}.status` });

/**
 * SQL text: trip `t`'s status at the moment `at` (an SQL timestamptz no later than now); at now, its
 * current status, the row as every other read takes it (even when an action committed since this
 * transaction's now). Every status change is a trip action of the operations log
 * (trip_operation_events rows naming no manifest item, written in the same transaction by
 * db/writes/trip-operations dispatchTrip; their `before` and `after` hold the trip's status), so the
 * status at a past moment is the one before the first trip action after it, or the current one when
 * none came since (a trip is created SCHEDULED, or with the status a seed gave it, which the
 * `before` of its first action holds).
 */
export function tripStatusAtSql(t: string, at: string): string {
  return `case when ${at} >= now() then ${t}.status
    else coalesce((select e.before ->> 'status' from trip_operation_events e
                   where e.trip_id = ${t}.id and e.manifest_item_id is null and e.created_at > ${at}
                   order by e.created_at, e.id limit 1), ${t}.status) end`;
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
 * boarding call's planned departure plus the trip's lateness is still ahead, at the moment (now
 * unless given).
 */
export function legStillBoardsSql(
  legs: Omit<LegAliases, 'alight'>,
  moment: LegMoment = currentMoment(legs.trip),
): string {
  const { trip, board } = legs;
  const { at, status } = moment;
  return `((${status} in ('SCHEDULED', 'BOARDING', 'DELAYED')
            or (${status} = 'DEPARTED' and ${boardsAfterFirstCall(legs)}))
           and ${expectedDepartureSql(trip, `${board}.departure_at`)} > ${at})`;
}

/**
 * SQL boolean: the leg's boarding credential has expired (SPEC "Document ticket validity"), at the
 * moment (now and the trip's current status unless given). The trip arrived, completed or was
 * cancelled; or it departed and the bus has left the leg's boarding call (legStillBoardsSql); or,
 * before it departs, the alighting call's planned arrival plus the announced delay has passed.
 */
export function legOverSql(legs: LegAliases, moment: LegMoment = currentMoment(legs.trip)): string {
  const { trip, alight } = legs;
  const { at, status } = moment;
  return `(${status} in ('ARRIVED', 'COMPLETED', 'CANCELLED')
           or (${status} = 'DEPARTED' and not ${legStillBoardsSql(legs, moment)})
           or ${alight}.arrival_at + ${lateness(trip)} < ${at})`;
}
