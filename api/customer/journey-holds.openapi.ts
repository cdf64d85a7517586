import { z } from 'zod';
import { operations, type RouteSpec } from '../http/route.js';
import { firstNamedErrorCode, ruleIssue } from '../http/rule-issues.js';
import { errorResponses, Instant, NAME_LETTER_RULE, PersonName, PersonPhone, Uuid } from '../http/schemas.js';
import { IdText, successWith } from '../http/answer-schemas.js';
import { FAILURE_REASONS } from '../../domain/journey-confirmation.js';
import {
  CredentialPayload,
  CredentialSignatureText,
  JourneyTicketStatus,
  SHOWN_CREDENTIAL_RULE,
} from '../http/credential-schemas.js';

/**
 * Schemas and prose of the journey-hold routes (SPEC "Journey confirmation"): hold, release,
 * confirm and read a journey or a journey order. The confirmation projection is the one answer
 * every channel shares.
 */

const IdempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be 8 to 128 characters of A-Z a-z 0-9 _ -')
  .meta({ description: 'client-chosen key; a retry with the same key and body gets the same answer' });

const Traveller = z
  .object({
    name: PersonName.meta({ description: `as printed on the ticket; ${NAME_LETTER_RULE}` }),
    phone: PersonPhone.optional().meta({
      description:
        'contact of this traveller: international format with leading + (a Syrian number may keep its trunk 0), kept in ' +
        "its E.164 form as sign-in stores it; the lead's (travellers[0]) is the booking's passenger_phone, else the " +
        "account's. Optional, except for the lead when the account has no phone yet (409 TRAVELER_PROFILE_REQUIRED)",
    }),
  })
  .strict()
  .meta({ id: 'JourneyTraveller' });

const Travellers = z
  .array(Traveller)
  .min(1)
  .max(20)
  .meta({ description: 'one per party member (party_size of the quote), in seat order' });

export const JourneyParams = z.object({ bookingId: Uuid }).strict();
export const JourneyHoldParams = z.object({ bookingId: Uuid, holdBatchId: Uuid }).strict();
export const OrderParams = z.object({ orderId: Uuid }).strict();
export const OrderHoldParams = z.object({ orderId: Uuid, holdBatchId: Uuid }).strict();

export const JourneyHoldBody = z
  .object({
    quote_id: Uuid.meta({ description: 'the quote whose journey_id is {bookingId}' }),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict()
  .meta({ id: 'JourneyHoldRequest' });

const distinct = (ids: string[]) => new Set(ids).size === ids.length;

export const OrderHoldBody = z
  .object({
    journey_ids: z.array(Uuid).min(2).max(10).meta({
      uniqueItems: true,
      description:
        'journey_id of 2 to 10 quotes of the caller (of one or several companies); fixed by the first hold',
    }),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!distinct(body.journey_ids))
      ctx.addIssue(ruleIssue('DUPLICATE_JOURNEY', 'a journey is listed twice', ['journey_ids']));
  })
  .meta({ id: 'JourneyOrderHoldRequest' });

export const JourneyConfirmBody = z
  .object({
    quote_id: Uuid.meta({ description: 'the quote the journey was held from' }),
    hold_batch_id: Uuid.meta({ description: 'holdBatchId of the active hold' }),
    travellers: Travellers,
    idempotency_key: IdempotencyKey,
  })
  .strict()
  .meta({ id: 'JourneyConfirmRequest' });

export const OrderConfirmBody = z
  .object({
    hold_batch_id: Uuid.meta({ description: "holdBatchId of the order's active hold" }),
    journeys: z
      .array(z.object({ journey_id: Uuid, travellers: Travellers }).strict())
      .min(2)
      .max(10)
      .meta({ description: 'every journey of the order exactly once, with its travellers' }),
    idempotency_key: IdempotencyKey,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!distinct(body.journeys.map((journey) => journey.journey_id))) {
      ctx.addIssue(ruleIssue('DUPLICATE_JOURNEY', 'a journey is listed twice', ['journeys']));
    }
  })
  .meta({ id: 'JourneyOrderConfirmRequest' });

const JourneyState = z.enum(['DRAFT', 'HELD', 'REQUESTED', 'CONFIRMED', 'CANCELLED', 'RELEASED', 'EXPIRED']);

const StopPoint = z.object({
  stop_call_id: IdText,
  stop_id: IdText,
  name_ar: z.string(),
  name_en: z.string(),
});

const Projection = z
  .object({
    bookingId: IdText.optional().meta({ description: 'the journey (journey routes)' }),
    orderId: IdText.optional().meta({ description: 'the journey order (order routes)' }),
    confirmation: z.object({
      status: JourneyState.meta({
        description:
          'CONFIRMED or REQUESTED once confirmed; HELD while seats are held; CANCELLED (see failure_reason), RELEASED or EXPIRED when it ended; DRAFT before any hold',
      }),
      deadline: Instant.nullable().meta({
        description: 'while REQUESTED: the earliest pending company deadline',
      }),
      requests: z
        .array(
          z.object({
            company_id: IdText,
            status: z.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED']).meta({
              description:
                "EXPIRED: the company's own deadline passed undecided; CANCELLED: the journey ended while the " +
                "company still had time (another company's rejection or missed deadline, a suspension, a cancelled trip)",
            }),
            deadline: Instant,
          }),
        )
        .meta({ description: 'one per company that confirms manually for this channel' }),
    }),
    failure_reason: z
      .enum(FAILURE_REASONS)
      .nullable()
      .meta({
        description:
          'why a CANCELLED journey or order ended: a company rejected it, its decision deadline passed, a company ' +
          'of it was suspended while it waited, or a company cancelled one of its trips',
      }),
    booking: z.object({
      status: z.enum([
        'DRAFT',
        'HELD',
        'PENDING_CONFIRMATION',
        'CONFIRMED',
        'CANCELLED',
        'RELEASED',
        'EXPIRED',
      ]),
    }),
    hold: z
      .object({
        holdBatchId: IdText,
        status: z.enum(['ACTIVE', 'CONSUMED', 'RELEASED', 'EXPIRED']),
        expiresAt: z.int().meta({ description: 'Unix epoch seconds' }),
      })
      .nullable()
      .meta({ description: 'the latest hold batch' }),
    tickets: z.array(
      z.object({
        id: IdText,
        journey_id: IdText,
        leg_sequence: z.int(),
        traveller_name: z.string(),
        seat_number: z.string(),
        trip_id: IdText,
        company_id: IdText,
        status: JourneyTicketStatus,
        payload: CredentialPayload.nullable().meta({
          description:
            'the boarding credential (canonical JSON of this object is what was signed); null unless ' +
            'boarding_authorized (so also until CONFIRMED)',
        }),
        signature: CredentialSignatureText.meta({
          description: 'Ed25519 signature, base64url; null unless boarding_authorized',
        }),
        key_id: z.string().nullable().meta({
          description: 'the published key that verifies the signature; null unless boarding_authorized',
        }),
        boarding_authorized: z.boolean().meta({ description: SHOWN_CREDENTIAL_RULE }),
      }),
    ),
    legs: z.array(
      z.object({
        journey_id: IdText,
        sequence: z.int(),
        trip_id: IdText,
        company: z.object({ id: IdText, name_ar: z.string(), name_en: z.string() }),
        delay_minutes: z.int().meta({
          description: "the delay the leg's trip company announced (MARK_DELAYED), in minutes; 0 when none",
        }),
        board: StopPoint.extend({
          departure_at: Instant.meta({ description: 'the planned departure from the boarding stop' }),
          expected_departure_at: Instant.meta({
            description:
              'the departure the company announced from the boarding stop: departure_at plus delay_minutes (or how ' +
              "late the bus actually left its trip's first stop, when more); departure_at when on time. The same as " +
              "trip.expected_departure_at of the leg's booking (GET /bookings/{id})",
          }),
        }),
        alight: StopPoint.extend({ arrival_at: Instant }),
        unit_price: z.number(),
        quantity: z.int(),
        subtotal: z.number(),
        seat_numbers: z.array(z.string()).meta({
          description:
            'seats held or confirmed on this leg: a ticketed seat under the label printed on its ticket, a held ' +
            'one under the active layout’s label',
        }),
      }),
    ),
    journeys: z.array(z.object({ bookingId: IdText, party_size: z.int(), status: JourneyState })),
    total_price: z.number(),
    currency: z.string(),
  })
  .meta({ id: 'JourneyConfirmationProjection' });

const ProjectionResponse = successWith(Projection);
const HoldResponse = successWith(
  Projection.extend({
    holdBatchId: IdText,
    expiresAt: z.int().meta({ description: 'Unix epoch seconds: the hold ends unless confirmed by then' }),
  }),
);
const ReleaseResponse = successWith(z.object({ holdBatchId: IdText, status: z.literal('RELEASED') }));

const CONFIRM_RULES =
  'The answer is the confirmation projection, the same for web and mobile. Each company involved decides by its booking ' +
  'confirmation settings for this channel (CUSTOMER_WEB for cookie sessions, CUSTOMER_MOBILE for bearer tokens; a channel ' +
  'the company did not list confirms automatically): all automatic → confirmation.status CONFIRMED, tickets signed ' +
  '(payload, signature, key_id) and boarding_authorized true; any manual → REQUESTED with confirmation.deadline (now + the ' +
  "company's decision window), the seats stay held until then, every ticket PENDING_CONFIRMATION with payload and signature " +
  'null and boarding_authorized false. All manual companies approve → CONFIRMED; one rejects → CANCELLED with failure_reason ' +
  'COMPANY_REJECTED; the deadline passes → CANCELLED with failure_reason DECISION_DEADLINE_PASSED (seats released either way; ' +
  'from the deadline on they are free to others and the next read of the journey or order shows it CANCELLED). ' +
  'A company suspended while the journey waits ends it with COMPANY_SUSPENDED, and a trip cancelled by its company ' +
  'with TRIP_CANCELLED. ' +
  'Never show a QR code or request a PDF by booking.status alone: use confirmation and boarding_authorized. ' +
  'idempotency_key is stored per traveller: the same key and body answer exactly as the first call did (even after later ' +
  'changes), except a 409 UNPAID_BOOKING_LIMIT_REACHED, which is not stored; the same key with another body is 409 ' +
  'IDEMPOTENCY_KEY_REUSED. The quote may have expired meanwhile: the ' +
  "active hold is what counts. Errors: 404 when the journey/order is not the caller's, the quote is not this journey's or " +
  "the hold batch is not this one's; 400 TRAVELLERS_DO_NOT_MATCH_PARTY; 409 HOLD_CLOSED (released, expired or already " +
  "used), HOLD_EXPIRED (past expiresAt), TRIP_NOT_BOOKABLE (a leg's trip has departed or been cancelled, or its company no " +
  'longer takes bookings), 409 LEGS_NO_LONGER_CONNECTED (a connection whose first leg is now expected, its planned ' +
  'arrival plus the delay announced since, too late for the change; details {journey_id, leg_sequence, ' +
  'expected_arrival_at}; nothing written, the hold stays until released or expired), ' +
  'ALREADY_CONFIRMED (the hold was confirmed with another key: of concurrent confirms exactly one acts), ' +
  'UNPAID_BOOKING_LIMIT_REACHED (details {limit, unpaid}: the bookings this confirm writes would take ' +
  'the account past UNPAID_BOOKINGS_MAX; nothing written, the hold stays, and once a booking is paid or cancelled the same ' +
  'request with the same key confirms), ' +
  "TRAVELER_PROFILE_REQUIRED (the account has no phone yet, an identity-provider sign-in before complete-phone, and a journey's " +
  'lead traveller, travellers[0], has no phone: the company could not reach the traveller; details {journey_ids}; nothing ' +
  "written, not stored under the key, the hold stays: complete the phone, or send the lead's phone, and retry). " +
  'An automatic confirm is one transaction; a REQUESTED one also starts the ' +
  'process that waits for the companies (503 CONFIRMATION_UNAVAILABLE, nothing written, when it cannot be started: retry ' +
  'with the same key after its Retry-After, 5 s, during which such confirms are refused at once).';

const HOLD_RULES =
  'Holds the seats of the quote for HOLD_MINUTES (10 by default; expiresAt, epoch seconds), in one transaction. At ' +
  'expiresAt the hold ends by itself: its seats are free for everyone at once and any later read or write of the journey ' +
  'shows it EXPIRED (hold.status EXPIRED). Needs a signed-in traveller (a guest quote is claimed by the first traveller who holds ' +
  'it; the journey then belongs to that traveller). Seats: those assigned in the quote, else the lowest free seats (lower deck, ' +
  "then label order) on each leg's stretch; a VIP_SEAT gets only a VIP-class seat, a SEAT a standard one first. All seats of all " +
  'legs are held in one transaction or none: a seat taken meanwhile, an assigned seat no longer of the class the quote ' +
  'priced it at (assignment_classes), or too few free seats, is 409 SEATS_UNAVAILABLE. ' +
  "A trip outside the caller's inventory scope is 404 TRIP_NOT_FOUND (nothing held). Other refusals: " +
  '404 QUOTE_NOT_FOUND, 409 QUOTE_EXPIRED, TRIP_NOT_BOOKABLE, HOLD_ALREADY_ACTIVE (one hold at a time; release it first), ' +
  '409 LEGS_NO_LONGER_CONNECTED (a connection whose change search and the quote no longer allow: its first leg is now ' +
  'expected, planned arrival plus announced delay, too late for the change times; details {journey_id, leg_sequence, ' +
  'expected_arrival_at}; nothing held), ' +
  'JOURNEY_NOT_HOLDABLE (requested, confirmed or cancelled). After a release or expiry the journey may be held again while ' +
  'its quote is valid. idempotency_key (optional): a retry with the same key while the hold lasts answers the same hold; ' +
  'once that hold ended the key cannot hold again: 409 HOLD_CLOSED (released or expired) or HOLD_EXPIRED (past ' +
  'expiresAt), nothing written; hold with another key. ' +
  'Abuse limits per account: its journey holds and live seat locks together may hold at most HELD_SEATS_MAX_PER_TRIP (10) ' +
  'seats of one trip and HELD_SEATS_MAX_TOTAL (20) in all (409 SEAT_HOLD_LIMIT_REACHED, details {scope: TRIP (and ' +
  'trip_id) or ACCOUNT, limit, held, requested}); an account with UNPAID_BOOKINGS_MAX (3) unpaid bookings (with a total above 0: a ' +
  'free-trip booking never counts) cannot hold ' +
  '(409 UNPAID_BOOKING_LIMIT_REACHED, details {limit, unpaid}); nothing is held then. JOURNEY_HOLD_RATE_LIMIT_PER_HOUR ' +
  '(30) journey and order hold requests per account per hour, else 429 RATE_LIMITED with Retry-After. 0 turns a limit off.';

/** What every journey-hold route declares alike. */
export const HOLD_ROUTE: Pick<RouteSpec<undefined, undefined, undefined>, 'security' | 'errorCode'> = {
  security: 'traveller',
  errorCode: firstNamedErrorCode,
};

const TAGS = ['Journey holds'];
const WRITE_ERRORS = errorResponses(400, 401, 403, 404, 409, 503);
const READ_ERRORS = errorResponses(400, 401, 404);

/** What a journey and an order answer alike when held, released or confirmed. */
const RESPONSES = {
  hold: {
    200: {
      description: 'Seats held',
      schema: HoldResponse,
    },
    ...WRITE_ERRORS,
    ...errorResponses(429),
  },
  release: {
    200: {
      description: 'Released',
      schema: ReleaseResponse,
    },
    ...WRITE_ERRORS,
  },
  confirm: {
    200: {
      description: 'CONFIRMED or REQUESTED (or the stored answer of a retry)',
      schema: ProjectionResponse,
    },
    ...WRITE_ERRORS,
  },
};

/** The docs of each route, in the order they are registered. */
export const docs = operations({
  holdJourney: {
    summary: 'Hold the seats of a quoted journey',
    description: `{bookingId} is the journey_id of the quote (POST /journeys/quote creates the draft journey). ${HOLD_RULES}`,
    tags: TAGS,
    responses: RESPONSES.hold,
  },
  releaseJourneyHold: {
    summary: 'Release a journey hold',
    description:
      'Frees the held seats at once (allocations and batch RELEASED, journey RELEASED). 404 HOLD_NOT_FOUND for a batch that ' +
      "is not this journey's (or another traveller's journey); 409 HOLD_CLOSED when the batch was already released, expired " +
      'or confirmed, or its time has run out (it is then written EXPIRED, not RELEASED).',
    tags: TAGS,
    responses: RESPONSES.release,
  },
  confirmJourney: {
    summary: 'Confirm a held journey with its travellers',
    description: `Consumes the quote, the session, the hold batch, the travellers and one idempotency key. ${CONFIRM_RULES}`,
    tags: TAGS,
    responses: RESPONSES.confirm,
  },
  getJourney: {
    summary: 'The confirmation projection of a journey',
    description:
      'Owner only (another traveller gets 404 JOURNEY_NOT_FOUND); always Cache-Control private, no-store. The same projection ' +
      'for every channel: show a boarding pass only for tickets with boarding_authorized true. Each leg carries the ' +
      "delay its trip's company announced (delay_minutes) and the departure announced from the leg's boarding stop " +
      '(board.expected_departure_at, beside its planned board.departure_at), as GET /bookings/{id} shows them on its trip.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The journey',
        schema: ProjectionResponse,
      },
      ...READ_ERRORS,
    },
  },
  holdJourneyOrder: {
    summary: 'Hold the seats of several quoted journeys as one order',
    description:
      '{orderId} is chosen by the client (a canonical UUID) and bound to the caller on its first hold; for anyone else it does ' +
      'not exist (404 ORDER_NOT_FOUND). The journeys (2 to 10, possibly of several companies) are fixed by that first hold ' +
      '(409 ORDER_JOURNEYS_MISMATCH for another set); a journey in an order is held, confirmed and released only through it ' +
      '(409 JOURNEY_IN_ORDER on its own routes), and a journey held on its own cannot join one while that hold lasts (409 ' +
      'JOURNEY_NOT_HOLDABLE; once it ran out the journey joins, its hold written EXPIRED first). A refused (or failed) first hold ' +
      'binds nothing: the order id stays unused and its journeys free to be held alone or in another order. One hold batch covers ' +
      `every seat of every journey: all or nothing. ${HOLD_RULES}`,
    tags: TAGS,
    responses: RESPONSES.hold,
  },
  releaseJourneyOrderHold: {
    summary: "Release an order's hold",
    description:
      'As DELETE /journeys/{bookingId}/holds/{holdBatchId}, for every journey of the order at once.',
    tags: TAGS,
    responses: RESPONSES.release,
  },
  confirmJourneyOrder: {
    summary: 'Confirm a held order with the travellers of each journey',
    description:
      'Every journey of the order is confirmed together: one company rejecting, or one deadline passing, cancels all of them. ' +
      'journeys lists each journey of the order once with its travellers: another set (a journey of the order left ' +
      'out, or one not of the order) is 409 ORDER_JOURNEYS_MISMATCH, as for the order hold, and nothing is written; ' +
      'a journey listed twice is 400 DUPLICATE_JOURNEY. ' +
      CONFIRM_RULES,
    tags: TAGS,
    responses: RESPONSES.confirm,
  },
  getJourneyOrder: {
    summary: 'The confirmation projection of a journey order',
    description:
      'Owner only (another traveller gets 404 ORDER_NOT_FOUND); always private, no-store. Tickets and legs of every journey ' +
      '(journey_id on each), one confirmation for the whole order.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The order',
        schema: ProjectionResponse,
      },
      ...READ_ERRORS,
    },
  },
});
