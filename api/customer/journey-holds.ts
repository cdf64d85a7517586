import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  findHoldBatch,
  findOwnedScope,
  readConfirmationProjection,
  type OwnedScope,
} from '../../db/queries/journeys.js';
import {
  claimIdempotencyKey,
  findIdempotencyRecord,
  storeIdempotentAnswer,
  type IdempotentAnswer,
} from '../../db/writes/idempotency.js';
import { draftJourney, draftOrder, type DraftResult } from '../../db/writes/journeys/index.js';
import type {
  BookingChannel,
  ConfirmationScope,
  JourneyTravellers,
} from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Uuid, Instant } from '../http/schemas.js';
import {
  journeyConfirmationClient,
  type JourneyConfirmationClient,
} from '../temporal/journey-confirmation-client.js';

/** A custom zod issue that names the errorCode of the rule it breaks. */
const ruleIssue = (errorCode: string, message: string, path: (string | number)[]) =>
  ({ code: 'custom', message, path, params: { errorCode } }) as const;

function errorCodeOf(issues: z.core.$ZodIssue[]): string {
  for (const issue of issues) {
    const code =
      issue.code === 'custom' ? (issue.params as { errorCode?: string } | undefined)?.errorCode : undefined;
    if (code) return code;
  }
  return 'VALIDATION_FAILED';
}

const IdempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be 8 to 128 characters of A-Z a-z 0-9 _ -')
  .meta({ description: 'client-chosen key; a retry with the same key and body gets the same answer' });

const Traveller = z
  .object({
    name: z.string().trim().min(1).max(120).meta({ description: 'as printed on the ticket' }),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{7,14}$/, 'must be an international number: + then 8 to 15 digits')
      .optional()
      .meta({ description: 'optional contact of this traveller (E.164)' }),
  })
  .strict()
  .meta({ id: 'JourneyTraveller' });

const Travellers = z
  .array(Traveller)
  .min(1)
  .max(20)
  .meta({ description: 'one per party member (party_size of the quote), in seat order' });

const JourneyParams = z.object({ bookingId: Uuid }).strict();
const JourneyHoldParams = z.object({ bookingId: Uuid, holdBatchId: Uuid }).strict();
const OrderParams = z.object({ orderId: Uuid }).strict();
const OrderHoldParams = z.object({ orderId: Uuid, holdBatchId: Uuid }).strict();

const JourneyHoldBody = z
  .object({
    quote_id: Uuid.meta({ description: 'the quote whose journey_id is {bookingId}' }),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict()
  .meta({ id: 'JourneyHoldRequest' });

const distinct = (ids: string[]) => new Set(ids).size === ids.length;

const OrderHoldBody = z
  .object({
    journey_ids: z.array(Uuid).min(2).max(10).meta({
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

const JourneyConfirmBody = z
  .object({
    quote_id: Uuid.meta({ description: 'the quote the journey was held from' }),
    hold_batch_id: Uuid.meta({ description: 'holdBatchId of the active hold' }),
    travellers: Travellers,
    idempotency_key: IdempotencyKey,
  })
  .strict()
  .meta({ id: 'JourneyConfirmRequest' });

const OrderConfirmBody = z
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

const IdText = z.string().meta({ format: 'uuid' });
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
            status: z.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED']),
            deadline: Instant,
          }),
        )
        .meta({ description: 'one per company that confirms manually for this channel' }),
    }),
    failure_reason: z.enum(['COMPANY_REJECTED', 'DECISION_DEADLINE_PASSED']).nullable(),
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
        status: z.enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED']),
        payload: z.record(z.string(), z.unknown()).nullable().meta({
          description:
            'the boarding credential (canonical JSON of this object is what was signed); null until CONFIRMED',
        }),
        signature: z
          .string()
          .nullable()
          .meta({ description: 'Ed25519 signature, base64url; null until CONFIRMED' }),
        key_id: z.string().nullable().meta({ description: 'the published key that verifies the signature' }),
        boarding_authorized: z
          .boolean()
          .meta({ description: 'the only flag a client may show a QR code or boarding pass by' }),
      }),
    ),
    legs: z.array(
      z.object({
        journey_id: IdText,
        sequence: z.int(),
        trip_id: IdText,
        company: z.object({ id: IdText, name_ar: z.string(), name_en: z.string() }),
        board: StopPoint.extend({ departure_at: Instant }),
        alight: StopPoint.extend({ arrival_at: Instant }),
        unit_price: z.number(),
        quantity: z.int(),
        subtotal: z.number(),
        seat_numbers: z.array(z.string()).meta({ description: 'seats held or confirmed on this leg' }),
      }),
    ),
    journeys: z.array(z.object({ bookingId: IdText, party_size: z.int(), status: JourneyState })),
    total_price: z.number(),
    currency: z.string(),
  })
  .meta({ id: 'JourneyConfirmationProjection' });

const ProjectionResponse = z.object({ success: z.literal(true), data: Projection });
const HoldResponse = z.object({
  success: z.literal(true),
  data: Projection.extend({
    holdBatchId: IdText,
    expiresAt: z.int().meta({ description: 'Unix epoch seconds: the hold ends unless confirmed by then' }),
  }),
});
const ReleaseResponse = z.object({
  success: z.literal(true),
  data: z.object({ holdBatchId: IdText, status: z.literal('RELEASED') }),
});

const CONFIRM_RULES =
  'The answer is the confirmation projection, the same for web and mobile. Each company involved decides by its booking ' +
  'confirmation settings for this channel (CUSTOMER_WEB for cookie sessions, CUSTOMER_MOBILE for bearer tokens; a channel ' +
  'the company did not list confirms automatically): all automatic → confirmation.status CONFIRMED, tickets signed ' +
  '(payload, signature, key_id) and boarding_authorized true; any manual → REQUESTED with confirmation.deadline (now + the ' +
  "company's decision window), the seats stay held until then, every ticket PENDING_CONFIRMATION with payload and signature " +
  'null and boarding_authorized false. All manual companies approve → CONFIRMED; one rejects → CANCELLED with failure_reason ' +
  'COMPANY_REJECTED; the deadline passes → CANCELLED with failure_reason DECISION_DEADLINE_PASSED (seats released either way). ' +
  'Never show a QR code or request a PDF by booking.status alone: use confirmation and boarding_authorized. ' +
  'idempotency_key is stored per traveller: the same key and body answer exactly as the first call did (even after later ' +
  'changes); the same key with another body is 409 IDEMPOTENCY_KEY_REUSED. The quote may have expired meanwhile: the ' +
  "active hold is what counts. Errors: 404 when the journey/order is not the caller's, the quote is not this journey's or " +
  "the hold batch is not this one's; 400 TRAVELLERS_DO_NOT_MATCH_PARTY; 409 HOLD_CLOSED (released, expired or already " +
  'used), HOLD_EXPIRED, ALREADY_CONFIRMED.';

const HOLD_RULES =
  'Holds the seats of the quote for HOLD_MINUTES (10 by default; expiresAt, epoch seconds) and starts the confirmation ' +
  'process journey-confirmation/{id}. Needs a signed-in traveller (a guest quote is claimed by the first traveller who holds ' +
  'it; the journey then belongs to that traveller). Seats: those assigned in the quote, else the lowest free seats (lower deck, ' +
  "then label order) on each leg's stretch; a VIP_SEAT gets a VIP-class seat, a SEAT a standard one first. All seats of all " +
  'legs are held in one transaction or none: a seat taken meanwhile, or too few free seats, is 409 SEATS_UNAVAILABLE. ' +
  "A trip outside the caller's inventory scope is 404 TRIP_NOT_FOUND (nothing held, no process started). Other refusals: " +
  '404 QUOTE_NOT_FOUND, 409 QUOTE_EXPIRED, TRIP_NOT_BOOKABLE, HOLD_ALREADY_ACTIVE (one hold at a time; release it first), ' +
  'JOURNEY_NOT_HOLDABLE (requested, confirmed or cancelled). After a release or expiry the journey may be held again while ' +
  'its quote is valid. idempotency_key (optional): a retry with the same key while the hold lasts answers the same hold.';

type ScopeKind = ConfirmationScope['kind'];

const notFound = (kind: ScopeKind) =>
  kind === 'ORDER'
    ? new Refusal(404, 'ORDER_NOT_FOUND', 'No such journey order')
    : new Refusal(404, 'JOURNEY_NOT_FOUND', 'No such journey');

function signedIn(ctx: Context) {
  return ctx.state.traveller!;
}

/** Web sessions (cookies) book through CUSTOMER_WEB, the mobile app's bearer tokens through CUSTOMER_MOBILE. */
function channelOf(ctx: Context): BookingChannel {
  return signedIn(ctx).via === 'cookie' ? 'CUSTOMER_WEB' : 'CUSTOMER_MOBILE';
}

export function registerJourneyHoldRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const workflow = journeyConfirmationClient(context.temporal, config);

  const ownedScope = async (ctx: Context, scope: ConfirmationScope): Promise<OwnedScope> => {
    const owned = await findOwnedScope(db, scope, signedIn(ctx).userId);
    if (!owned) throw notFound(scope.kind);
    if (scope.kind === 'JOURNEY' && owned.journeys[0]!.order_id) {
      throw new Refusal(
        409,
        'JOURNEY_IN_ORDER',
        "This journey belongs to a journey order; use the order's routes",
      );
    }
    return owned;
  };

  const projection = async (ctx: Context, scope: ConfirmationScope) => {
    const data = await readConfirmationProjection(db, scope, signedIn(ctx).userId);
    if (!data) throw notFound(scope.kind);
    return data;
  };

  const hold = async (ctx: Context, draft: DraftResult, idempotencyKey: string | undefined) => {
    const { userId } = signedIn(ctx);
    const updateId = idempotencyKey ? `hold:${userId}:${idempotencyKey}` : `hold:${randomUUID()}`;
    const result = await workflow.hold(
      { scope: draft.scope, ownerUserId: userId, companyIds: draft.companyIds },
      updateId,
      ctx.state.requestId,
    );
    ctx.body = {
      success: true,
      data: {
        ...(await projection(ctx, draft.scope)),
        holdBatchId: result.holdBatchId,
        expiresAt: Math.floor(new Date(result.expiresAt).getTime() / 1000),
      },
    };
  };

  const release = async (ctx: Context, scope: ConfirmationScope, holdBatchId: string) => {
    await ownedScope(ctx, scope);
    const batch = await findHoldBatch(db, holdBatchId);
    if (!batch || batch.scope_kind !== scope.kind || batch.scope_id !== scope.id) {
      throw new Refusal(404, 'HOLD_NOT_FOUND', 'No such hold batch for this journey');
    }
    if (batch.status !== 'ACTIVE')
      throw new Refusal(409, 'HOLD_CLOSED', `The hold is already ${batch.status}`);
    ctx.body = { success: true, data: await workflow.release(scope, holdBatchId) };
  };

  const confirm = (
    ctx: Context,
    scope: ConfirmationScope,
    body: { hold_batch_id: string; idempotency_key: string },
    travellersOf: (owned: OwnedScope) => JourneyTravellers[],
  ) =>
    confirmOnce(
      ctx,
      { db, workflow },
      {
        scope,
        body,
        travellersOf,
        channel: channelOf(ctx),
        respond: () => projection(ctx, scope),
        owned: () => ownedScope(ctx, scope),
      },
    );

  const read = async (ctx: Context, scope: ConfirmationScope) => {
    ctx.body = { success: true, data: await projection(ctx, scope) };
  };

  surface.route({
    method: 'post',
    path: '/journeys/{bookingId}/hold',
    operationId: 'holdJourney',
    summary: 'Hold the seats of a quoted journey',
    description: `{bookingId} is the journey_id of the quote (POST /journeys/quote creates the draft journey). ${HOLD_RULES}`,
    tags: ['Journey holds'],
    security: 'traveller',
    params: JourneyParams,
    body: JourneyHoldBody,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'Seats held', schema: HoldResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: async (ctx, { params, body }) => {
      const caller = { userId: signedIn(ctx).userId, scope: ctx.state.scope };
      const draft = await draftJourney(db, caller, { journeyId: params.bookingId, quoteId: body.quote_id });
      await hold(ctx, draft, body.idempotency_key);
    },
  });

  surface.route({
    method: 'delete',
    path: '/journeys/{bookingId}/holds/{holdBatchId}',
    operationId: 'releaseJourneyHold',
    summary: 'Release a journey hold',
    description:
      'Frees the held seats at once (allocations and batch RELEASED, journey RELEASED). 404 HOLD_NOT_FOUND for a batch that ' +
      "is not this journey's (or another traveller's journey); 409 HOLD_CLOSED when the batch was already released, expired " +
      'or confirmed.',
    tags: ['Journey holds'],
    security: 'traveller',
    params: JourneyHoldParams,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'Released', schema: ReleaseResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: (ctx, { params }) => release(ctx, { kind: 'JOURNEY', id: params.bookingId }, params.holdBatchId),
  });

  surface.route({
    method: 'post',
    path: '/journeys/{bookingId}/confirm',
    operationId: 'confirmJourney',
    summary: 'Confirm a held journey with its travellers',
    description: `Consumes the quote, the session, the hold batch, the travellers and one idempotency key. ${CONFIRM_RULES}`,
    tags: ['Journey holds'],
    security: 'traveller',
    params: JourneyParams,
    body: JourneyConfirmBody,
    errorCode: errorCodeOf,
    responses: {
      200: {
        description: 'CONFIRMED or REQUESTED (or the stored answer of a retry)',
        schema: ProjectionResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: (ctx, { params, body }) =>
      confirm(ctx, { kind: 'JOURNEY', id: params.bookingId }, body, (owned) => {
        if (owned.journeys[0]!.quote_id !== body.quote_id)
          throw new Refusal(404, 'QUOTE_NOT_FOUND', 'This quote is not the one the journey was held from');
        return [{ journeyId: params.bookingId, travellers: body.travellers }];
      }),
  });

  surface.route({
    method: 'get',
    path: '/journeys/{bookingId}',
    operationId: 'getJourney',
    summary: 'The confirmation projection of a journey',
    description:
      'Owner only (another traveller gets 404 JOURNEY_NOT_FOUND); always Cache-Control private, no-store. The same projection ' +
      'for every channel: show a boarding pass only for tickets with boarding_authorized true.',
    tags: ['Journey holds'],
    security: 'traveller',
    params: JourneyParams,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'The journey', schema: ProjectionResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: (ctx, { params }) => read(ctx, { kind: 'JOURNEY', id: params.bookingId }),
  });

  surface.route({
    method: 'post',
    path: '/journey-orders/{orderId}/hold',
    operationId: 'holdJourneyOrder',
    summary: 'Hold the seats of several quoted journeys as one order',
    description:
      '{orderId} is chosen by the client (a canonical UUID) and bound to the caller on its first hold; for anyone else it does ' +
      'not exist (404 ORDER_NOT_FOUND). The journeys (2 to 10, possibly of several companies) are fixed by that first hold ' +
      '(409 ORDER_JOURNEYS_MISMATCH for another set); a journey in an order is held, confirmed and released only through it ' +
      '(409 JOURNEY_IN_ORDER on its own routes), and a journey held on its own cannot join one. One hold batch covers every ' +
      `seat of every journey: all or nothing. ${HOLD_RULES}`,
    tags: ['Journey holds'],
    security: 'traveller',
    params: OrderParams,
    body: OrderHoldBody,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'Seats held', schema: HoldResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: async (ctx, { params, body }) => {
      const caller = { userId: signedIn(ctx).userId, scope: ctx.state.scope };
      const draft = await draftOrder(db, caller, { orderId: params.orderId, journeyIds: body.journey_ids });
      await hold(ctx, draft, body.idempotency_key);
    },
  });

  surface.route({
    method: 'delete',
    path: '/journey-orders/{orderId}/holds/{holdBatchId}',
    operationId: 'releaseJourneyOrderHold',
    summary: "Release an order's hold",
    description:
      'As DELETE /journeys/{bookingId}/holds/{holdBatchId}, for every journey of the order at once.',
    tags: ['Journey holds'],
    security: 'traveller',
    params: OrderHoldParams,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'Released', schema: ReleaseResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: (ctx, { params }) => release(ctx, { kind: 'ORDER', id: params.orderId }, params.holdBatchId),
  });

  surface.route({
    method: 'post',
    path: '/journey-orders/{orderId}/confirm',
    operationId: 'confirmJourneyOrder',
    summary: 'Confirm a held order with the travellers of each journey',
    description:
      'Every journey of the order is confirmed together: one company rejecting, or one deadline passing, cancels all of them. ' +
      `journeys lists each journey of the order once with its travellers. ${CONFIRM_RULES}`,
    tags: ['Journey holds'],
    security: 'traveller',
    params: OrderParams,
    body: OrderConfirmBody,
    errorCode: errorCodeOf,
    responses: {
      200: {
        description: 'CONFIRMED or REQUESTED (or the stored answer of a retry)',
        schema: ProjectionResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: (ctx, { params, body }) =>
      confirm(ctx, { kind: 'ORDER', id: params.orderId }, body, (owned) => {
        const sent = body.journeys
          .map((journey) => journey.journey_id)
          .sort()
          .join();
        if (
          sent !==
          owned.journeys
            .map((journey) => journey.id)
            .sort()
            .join()
        ) {
          throw new Refusal(400, 'ORDER_JOURNEYS_MISMATCH', 'Send every journey of the order exactly once');
        }
        return body.journeys.map((journey) => ({
          journeyId: journey.journey_id,
          travellers: journey.travellers,
        }));
      }),
  });

  surface.route({
    method: 'get',
    path: '/journey-orders/{orderId}',
    operationId: 'getJourneyOrder',
    summary: 'The confirmation projection of a journey order',
    description:
      'Owner only (another traveller gets 404 ORDER_NOT_FOUND); always private, no-store. Tickets and legs of every journey ' +
      '(journey_id on each), one confirmation for the whole order.',
    tags: ['Journey holds'],
    security: 'traveller',
    params: OrderParams,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'The order', schema: ProjectionResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: (ctx, { params }) => read(ctx, { kind: 'ORDER', id: params.orderId }),
  });
}

interface ConfirmCall {
  scope: ConfirmationScope;
  body: { hold_batch_id: string; idempotency_key: string };
  /** Checks the body against the scope and returns the travellers of each journey. */
  travellersOf: (owned: OwnedScope) => JourneyTravellers[];
  channel: BookingChannel;
  owned: () => Promise<OwnedScope>;
  respond: () => Promise<unknown>;
}

/**
 * Confirm with its idempotency record (scope confirm:{userId}): a stored answer is replayed; a
 * key used with another body is refused; input refused before the record is claimed leaves
 * nothing behind. The Update id is derived from the key, so duplicates in flight meet in the
 * workflow and act once.
 */
async function confirmOnce(
  ctx: Context,
  deps: { db: AppContext['db']; workflow: JourneyConfirmationClient },
  call: ConfirmCall,
): Promise<void> {
  const { db, workflow } = deps;
  const { userId } = signedIn(ctx);
  const owned = await call.owned();
  const recordScope = `confirm:${userId}`;
  const key = call.body.idempotency_key;
  const requestHash = createHash('sha256')
    .update(JSON.stringify({ scope: call.scope, body: call.body }))
    .digest('hex');
  const reply = (answer: IdempotentAnswer) => {
    const body = answer.body as { errorCode?: string; message?: string; details?: Record<string, unknown> };
    if (answer.status >= 400) throw new Refusal(answer.status, body.errorCode!, body.message!, body.details);
    ctx.status = answer.status;
    ctx.body = answer.body;
  };
  const reused = () =>
    new Refusal(
      409,
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key was already used for a different confirm request',
    );

  const stored = await findIdempotencyRecord(db, recordScope, key);
  if (stored && stored.requestHash !== requestHash) throw reused();
  if (stored?.answer) return reply(stored.answer);

  const journeys = call.travellersOf(owned);
  for (const journey of owned.journeys) {
    const sent = journeys.find((entry) => entry.journeyId === journey.id)!;
    if (sent.travellers.length !== journey.party_size) {
      throw new Refusal(
        400,
        'TRAVELLERS_DO_NOT_MATCH_PARTY',
        `Send ${journey.party_size} travellers for this journey`,
        { journey_id: journey.id },
      );
    }
  }
  const batch = await findHoldBatch(db, call.body.hold_batch_id);
  if (!batch || batch.scope_kind !== call.scope.kind || batch.scope_id !== call.scope.id) {
    throw new Refusal(404, 'HOLD_NOT_FOUND', 'No such hold batch for this journey');
  }
  // A retry whose first call got through but never stored its answer: the projection is the answer.
  const confirmedBefore = stored !== null && batch.status === 'CONSUMED';
  if (!confirmedBefore) {
    if (batch.status === 'CONSUMED')
      throw new Refusal(409, 'ALREADY_CONFIRMED', 'This hold was already confirmed');
    if (batch.status !== 'ACTIVE')
      throw new Refusal(409, 'HOLD_CLOSED', `The hold is already ${batch.status}`);
    if (!batch.live) throw new Refusal(409, 'HOLD_EXPIRED', 'The hold has expired; hold the journey again');
  }

  const claimed = await claimIdempotencyKey(db, recordScope, key, requestHash);
  if (claimed.requestHash !== requestHash) throw reused();
  if (claimed.answer) return reply(claimed.answer);
  if (!confirmedBefore) {
    try {
      await workflow.confirm(
        call.scope,
        { holdBatchId: batch.id, journeys, channel: call.channel, idempotencyKey: key },
        `confirm:${userId}:${key}`,
      );
    } catch (error) {
      if (error instanceof Refusal && error.status < 500) {
        await storeIdempotentAnswer(db, recordScope, key, {
          status: error.status,
          body: {
            errorCode: error.code,
            message: error.message,
            ...(error.details ? { details: error.details } : {}),
          },
        });
      }
      throw error;
    }
  }
  const answer = { status: 200, body: { success: true, data: await call.respond() } };
  await storeIdempotentAnswer(db, recordScope, key, answer);
  reply(answer);
}
