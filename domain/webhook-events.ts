/**
 * The events a company may be notified of (SPEC "Events"). Each is recorded once per booking it
 * concerns, in the transaction of the change that causes it; trip events are recorded for every
 * live booking on the trip, so every notification carries SPEC's `data` shape.
 */
export const WEBHOOK_EVENTS = [
  'booking.created',
  'booking.confirmed',
  'booking.cancelled',
  'trip.started',
  'trip.completed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** SPEC's notification `data`: the booking the event concerns. */
export interface WebhookEventData {
  booking_id: string;
  booking_code: string;
  trip_id: string;
  passenger_count: number;
  total_amount: number;
}
