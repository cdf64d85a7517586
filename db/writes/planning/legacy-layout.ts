import { legacyLayout } from '../../../domain/layout-templates.js';
import { legacyLayoutDue, type PlanningBus } from '../../../domain/trip-planning.js';
import type { TransactionClient } from '../../orm.js';
import { saveBusLayout, type SavedLayout } from '../catalogue.js';
import { setComingSeatsTotal } from './fleet.js';

/**
 * The legacy fallback made real (README "Company planning", Layouts). A bus imported before
 * canonical layouts (buses.legacy_seat_map) sells its recorded capacity until it gets a layout; every
 * seat path (hold, seat map, boarding readiness) reads the active layout, so the write that gives it
 * a trip (POST /trips, a re-plan onto it, a schedule's batch) first gives it legacyLayout(capacity)
 * as its active layout, in the planning transaction, after lockPlanningResources locked the bus: two
 * plans of the bus, or a plan and a layout save, run one after the other, and the second finds the
 * layout. Its seats are as many as the capacity the trip was checked with (tripSeats), so the trip's
 * seat count stands. legacy_seat_map stays true, as history: once the bus has a layout the flag
 * decides nothing (its capacity is the layout's, and 0 after the layout is archived).
 *
 * `bus` is the row resolveTripRefs read under that lock (TripRefs.bus), the one tripSeats judged.
 * Answers the layout saved, or null when the bus needed none.
 */
export async function giveLegacyBusLayout(
  client: TransactionClient,
  busId: string,
  bus: PlanningBus,
): Promise<SavedLayout | null> {
  if (!legacyLayoutDue(bus)) return null;
  const saved = await saveBusLayout(client, {
    busId,
    document: legacyLayout(bus.capacity),
    saveMode: 'active',
  });
  // As any active save: the trips already planned on the capacity sell the layout's seats.
  await setComingSeatsTotal(client, busId, saved.seatCount);
  return saved;
}
