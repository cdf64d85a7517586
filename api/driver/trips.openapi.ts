import { z } from 'zod';
import { SCAN_OUTCOMES, SCAN_REFUSALS } from '../../domain/boarding-scan.js';
import { TRIP_STATUSES } from '../../domain/trip-dispatch.js';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import { REPORT_MAX_AGE_SECONDS, REPORT_MAX_AHEAD_SECONDS } from '../../domain/trip-tracking.js';
import { AttendanceCounters, ManifestItem } from '../dashboard/dispatch.openapi.js';
import { CalendarDate, InstantInput, Pagination, PrintedText, textRule, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText as Id, pageWith, successWith } from '../http/answer-schemas.js';
import { CredentialPayload, ScannedSignature } from '../http/credential-schemas.js';

/** The OpenAPI side of the driver app's trip routes (api/driver/trips.ts). */

const TAGS = ['Driver app: trips'];

export const DriverTripsQuery = z
  .object({
    date: CalendarDate.optional().meta({
      description: 'operating date (Damascus); default: the trips not over',
    }),
    ...Pagination,
  })
  .strict();

const DriverTrip = z.object({
  id: Id,
  status: z.enum(TRIP_STATUSES),
  operating_date: z.string().meta({ format: 'date' }),
  departure_at: DateTime,
  arrival_at: DateTime,
  delay_minutes: z.int(),
  route: z.object({ name_ar: z.string(), name_en: z.string() }),
  plate_number: z.string(),
  travellers: z.int().meta({
    description: "the manifest's travellers: its tickets and its legacy bookings (its counters' total)",
  }),
  checked_in: z.int().meta({
    description:
      "of them, those checked in (a legacy booking CHECKED_IN or COMPLETED): the manifest's counter",
  }),
});

export const DriverTripsResponse = pageWith(DriverTrip);

export const ManifestResponse = successWith(
  z.object({
    trip: DriverTrip,
    counters: AttendanceCounters,
    manifest: z.array(ManifestItem),
  }),
);

export const ScanBody = z
  .object({
    client_scan_id: Uuid.meta({
      description: "the app's own id of this scan (a UUID): sending it again replays",
    }),
    payload: CredentialPayload.meta({ description: 'the credential payload as the QR code carries it' }),
    signature: ScannedSignature.meta({ description: 'the Ed25519 signature (base64url) beside it' }),
    // Shown to others (a second scanner's ALREADY_CHECKED_IN): nothing that makes it read as another device.
    device_id: PrintedText(1, 100)
      .optional()
      .meta({ description: `which scanner, shown to others; ${textRule(1, 100, 'line')}` }),
    scanned_at: InstantInput.optional().meta({
      description:
        'when the app scanned (ISO 8601); a scan queued offline is checked in at that time, or when the ticket was ' +
        'sold or issued if that is later (a check-in never predates its booking), or now if that is earlier (never ' +
        'in the future)',
    }),
  })
  .strict();

const CheckedIn = z.object({
  at: DateTime,
  byStaffUserId: Id.nullable(),
  byName: z.string().nullable(),
  source: z.string().nullable(),
  deviceId: z.string().nullable().optional(),
});

export const ScanResponse = successWith(
  z.object({
    clientScanId: Id,
    outcome: z.enum(SCAN_OUTCOMES),
    reason: z.enum(SCAN_REFUSALS).optional().meta({ description: 'why a REFUSED credential does not board' }),
    replayed: z
      .boolean()
      .meta({ description: 'true: the stored answer of this client scan id, nothing done again' }),
    ticket: z
      .object({
        ticketId: Id,
        travellerName: z.string(),
        seatNumber: z.string(),
        legSequence: z.int(),
        status: z.string(),
      })
      .optional()
      .meta({ description: 'present once the signature is authentic and the ticket exists' }),
    checkedIn: CheckedIn.nullable()
      .optional()
      .meta({ description: 'who checked the traveller in and when (CHECKED_IN, ALREADY_CHECKED_IN)' }),
    booking: z
      .object({
        bookingCode: z.string(),
        paymentStatus: z.string(),
        totalPrice: z.number(),
        currency: z.string(),
        cashToCollect: z
          .boolean()
          .optional()
          .meta({
            description:
              'the driver has its cash to take at the door: the booking travels, is UNPAID, its totalPrice is above 0, ' +
              'and its driver has not recorded taking the cash yet (POST .../bookings/{bookingId}/cash-collection); ' +
              'absent from a replayed answer stored before it existed',
          }),
      })
      .nullable()
      .optional()
      .meta({
        description: 'the booking the ticket belongs to, and whether the driver has its cash to collect',
      }),
  }),
);

export const PositionsBody = z
  .object({
    positions: z
      .array(
        z
          .object({
            lat: z.number().min(-90).max(90),
            lon: z.number().min(-180).max(180),
            speed: z.number().min(0).max(400).optional().meta({ description: 'km/h' }),
            heading: z.number().min(0).lt(360).optional().meta({ description: 'degrees from north' }),
            accuracy: z.number().min(0).max(100_000).optional().meta({ description: 'metres' }),
            time: InstantInput.meta({ description: 'when the position was taken (ISO 8601)' }),
          })
          .strict(),
      )
      .min(1)
      .max(200),
  })
  .strict();

export const PositionsResponse = successWith(
  z.object({
    accepted: z.int(),
    duplicates: z
      .int()
      .meta({ description: 'positions already reported for the same instant (a replayed batch)' }),
  }),
);

export const CashCollectionParams = z
  .object({
    id: Uuid.meta({ description: 'the trip' }),
    bookingId: Uuid.meta({ description: 'its booking' }),
  })
  .strict();

export const CashCollectionResponse = successWith(
  z
    .object({
      id: Id.meta({ description: 'the ledger line (GET /dashboard/api/payments/{id})' }),
      booking_id: Id,
      booking_code: z.string(),
      source: z.literal('driver'),
      status: z.enum(PAYMENT_STATUSES).meta({
        description: 'PENDING until the office verifies it (COMPLETED: the booking is PAID)',
      }),
      amount: z.number().meta({ description: "the booking's total, taken in cash" }),
      currency: z.string(),
      collected_by: Id.nullable().meta({ description: 'the driver who recorded taking the cash' }),
      created_at: DateTime,
    })
    .meta({ id: 'DriverCashCollection' }),
);

const ACCESS =
  'Authorization: Bearer <driver app token>. A DRIVER works only the trips assigned to them (403 ' +
  "TRIP_NOT_ASSIGNED); OWNER, ADMIN and DISPATCHER every trip of the company. Another company's trip is 404 " +
  'TRIP_NOT_FOUND.';
const WRITES =
  "A suspended company's writes are 403 COMPANY_SUSPENDED. The user is judged as they stand when the write is made, " +
  'after any change committed while the request waited: signed out or deactivated 401 INVALID_CREDENTIAL, no longer ' +
  'of a driver-app role 403 ROLE_NOT_ALLOWED, and the role they hold then decides which trips they may scan on; ' +
  'nothing is stored.';
const CLOCK = `Client instants may be at most ${REPORT_MAX_AHEAD_SECONDS / 60} minutes ahead and ${REPORT_MAX_AGE_SECONDS / 3600} hours behind the server's clock`;

export const docs = taggedOperations(TAGS, {
  listDriverTrips: {
    summary: 'The trips the signed-in driver works',
    description:
      'A DRIVER sees the trips assigned to them (trips.driver_id); OWNER, ADMIN and DISPATCHER every trip of the ' +
      'company. With date, that operating date (Damascus); without, the trips not over (under way, or scheduled to ' +
      'leave from 12 hours ago on). Earliest departure first; limit (default 20, at most 100) and offset.',
    responses: answers(200, 'The trips', DriverTripsResponse, [400, 401, 403]),
  },
  getDriverManifest: {
    summary: "A trip's manifest for the driver",
    description:
      `${ACCESS} The travellers as the operations room lists them and in its order (JOURNEY_TICKET items by boarding ` +
      "stop, then by seat in the bus's seat order: 2 before 10, 1A before 12B; BOOKING items, only for legacy " +
      'bookings, last), with boarding stop, seat, payment state and attendance, and the attendance counters.',
    responses: answers(200, 'The manifest', ManifestResponse, [400, 401, 403, 404]),
  },
  scanBoardingCredential: {
    summary: 'Verify a scanned boarding credential and check the traveller in',
    description:
      `${ACCESS} ${WRITES} One call verifies the credential offline-style (the key named by payload.keyId, the Ed25519 ` +
      'signature over the canonical JSON of payload, the trip, the revocation list, the ticket now) and checks the ' +
      "traveller in through the operations room's CHECK_IN (ticket USED: its PDF answers 410 and POST /verify refuses " +
      'it). Every verdict is a 200 with an outcome: CHECKED_IN; ALREADY_CHECKED_IN with checkedIn {at, byStaffUserId, ' +
      'byName, source, deviceId} (the same ticket scanned by another device, or again); REFUSED with reason ' +
      `(${SCAN_REFUSALS.join(', ')}); EXPIRED exactly when POST /driver/api/verify answered EXPIRED at the ` +
      "scan's moment: the time it is checked in at (its scanned_at, as recorded by the rules below; now without " +
      "one), on the trip's status then. The QR expired once the trip arrived, completed or was cancelled, or the " +
      "bus left the traveller's boarding stop (at DEPART for the first stop), so a scan queued offline while the " +
      'trip was boarding and sent after it left still checks in, at its scanned_at, and one scanned after the bus ' +
      "left is EXPIRED; the trip's announced delay and actual departure count as known now. On EXPIRED the ticket " +
      'is left as it was, and a traveller who boarded unscanned is checked in from the operations room ' +
      "(CHECK_IN). The answer is stored under (company, client_scan_id) in the check-in's " +
      'transaction: the same scan sent again (an offline queue replayed) gets the stored answer with replayed: true ' +
      'however late it comes, and checks nobody in twice; the same client_scan_id with another credential is 409 ' +
      `SCAN_ID_REUSED. ${CLOCK} when a scan is recorded (else 400 SCANNED_AT_OUT_OF_RANGE, nothing stored): the ` +
      'range applies to new scans only, never to a replay. A scanned_at before the ticket was sold or issued checks in at ' +
      'that moment instead (the device clock was wrong; the scan still counts), and one ahead of the server at the ' +
      "server's now. A second device that loses the race to check in one ticket gets ALREADY_CHECKED_IN with the " +
      'ticket USED.',
    responses: answers(200, 'The verdict', ScanResponse, [400, 401, 403, 404, 409]),
  },
  recordCashCollection: {
    summary: 'Record the cash the driver took for a booking',
    description:
      "The trip's driver records that they took a traveller's cash at the door: a PENDING ledger line of source " +
      "driver for the booking's total, collected_by the driver. The office then verifies it when the driver hands the " +
      'cash in (POST /dashboard/api/payments/{id}/verify, into the open cash shift; the booking becomes PAID), or ' +
      "cancels it. The booking's pending cash is collected once: a traveller's announced cash payment (POST " +
      '/api/payments/create) becomes this driver line (the same id), and one announced afterwards is answered with it. ' +
      'From this answer on the booking has no cash to collect (cashToCollect false in the scan answer, cash_to_collect ' +
      'in the manifest). Idempotent: while the booking has a PENDING or COMPLETED driver line, asking again (a retry, an ' +
      'offline queue, two devices at once) answers that line with 200 and writes nothing; 201 when recorded now. ' +
      "Refusals, nothing written: another company's trip 404 TRIP_NOT_FOUND; a caller who is not the trip's driver " +
      '(trips.driver_id), whatever their role, 403 TRIP_NOT_ASSIGNED; a booking not on this trip 404 ' +
      'BOOKING_NOT_FOUND; a booking already paid 409 BOOKING_ALREADY_PAID; one not travelling (cancelled, expired, ' +
      "awaiting the company's decision, no-show, completed, refunded) 409 BOOKING_NOT_PAYABLE; a trip not boarding or " +
      'under way (SCHEDULED, COMPLETED, CANCELLED) 409 TRIP_NOT_COLLECTING with details.status; a booking whose total ' +
      'is 0 (a voucher paid it) 409 NOTHING_TO_COLLECT; a traveller not checked in (scan them first) 409 ' +
      `TRAVELLER_NOT_CHECKED_IN. ${WRITES} No body.`,
    responses: {
      ...answers(201, 'Recorded', CashCollectionResponse, [400, 401, 403, 404, 409]),
      200: { description: "The booking's driver line, recorded before", schema: CashCollectionResponse },
    },
  },
  reportTripPositions: {
    summary: 'Report positions of the bus (batched)',
    description:
      `${ACCESS} ${WRITES} 1 to 200 positions {lat, lon, speed (km/h), heading, accuracy (m), time}; one position per ` +
      'trip and instant, so a batch sent again adds nothing (counted as duplicates), however late it comes. Taken ' +
      `while the trip is not over (else 409 TRIP_NOT_TRACKED). ${CLOCK} when new: an instant the trip already has ` +
      'counts as a duplicate whatever its age, and a batch with a new one outside that range is 400 ' +
      'POSITION_TIME_OUT_OF_RANGE and nothing is stored. The positions feed GET /dashboard/api/tracking/active-trips.',
    responses: answers(200, 'Stored', PositionsResponse, [400, 401, 403, 404, 409]),
  },
});
