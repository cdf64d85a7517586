import type { ConfirmationScope } from '../../domain/journey-confirmation.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';

/**
 * Every id one booking is known by, for the BookingId search attribute of a confirmation process
 * (workflows/shared.ts): the scope's own id (an order's or a journey's), its journeys' ids and
 * their booking rows' ids (the ids the dashboard, decisions, documents and webhooks name).
 */
export async function confirmationProcessIds(runner: SqlRunner, scope: ConfirmationScope): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    runner,
    `with scoped as (select id from journeys where ${scope.kind === 'JOURNEY' ? 'id' : 'order_id'} = $1)
     select id from scoped
     union all
     select b.id from bookings b where b.journey_id in (select id from scoped)`,
    [scope.id],
  );
  // A journey scope's own id is its journey's: listed once.
  return [...new Set([scope.id, ...rows.map((row) => row.id).sort()])];
}
