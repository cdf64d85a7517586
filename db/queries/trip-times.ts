import type { TripStatus } from '../../domain/trip-dispatch.js';

/**
 * The columns a trip read starts with, as they arrive: instants as text (a mapper turns them into
 * ISO strings), the operating date as `YYYY-MM-DD`.
 */
export interface TripTimesRow {
  id: string;
  status: TripStatus;
  operating_date: string;
  departure_at: string;
  arrival_at: string;
  delay_minutes: number;
}

/** With when the trip really left and arrived (null until it has). */
export interface TripActualTimesRow extends TripTimesRow {
  actual_departure_at: string | null;
  actual_arrival_at: string | null;
}
