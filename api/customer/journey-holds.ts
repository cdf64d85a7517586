import type { Context } from 'koa';
import { withPreparedReads } from '../../db/prepared.js';
import type { OwnedScope } from '../../db/queries/journeys.js';
import type {
  BookingChannel,
  ConfirmationScope,
  JourneyTravellers,
} from '../../domain/journey-confirmation.js';
import { transferSettings } from '../../domain/journey-search.js';
import type { AppContext } from '../app.js';
import { accountCaps, perAccountHourlyLimit } from '../http/abuse-limits.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import {
  confirmOnce,
  holdJourney,
  holdOrder,
  releaseHold,
  scopeProjection,
  type DirectDeps,
  type HoldCall,
} from '../use-cases/journey-confirmation.js';
import {
  docs,
  HOLD_ROUTE,
  JourneyConfirmBody,
  JourneyHoldBody,
  JourneyHoldParams,
  JourneyParams,
  OrderConfirmBody,
  OrderHoldBody,
  OrderHoldParams,
  OrderParams,
} from './journey-holds.openapi.js';
import { ok } from '../http/respond.js';

function signedIn(ctx: Context) {
  return ctx.state.traveller!;
}

/** Web sessions (cookies) book through CUSTOMER_WEB, the mobile app's bearer tokens through CUSTOMER_MOBILE. */
function channelOf(ctx: Context): BookingChannel {
  return signedIn(ctx).via === 'cookie' ? 'CUSTOMER_WEB' : 'CUSTOMER_MOBILE';
}

/**
 * The handlers every scope (journey or order) shares: hold, release, confirm and read. A hold is
 * counted against the one hourly limit of journey and order holds before `holdWith` runs.
 */
function scopeHandlers(deps: DirectDeps, rateLimit: (ctx: Context) => Promise<void>) {
  const holdCall = (ctx: Context, idempotencyKey: string | undefined): HoldCall => ({
    caller: { userId: signedIn(ctx).userId, scope: ctx.state.scope },
    idempotencyKey,
    requestId: ctx.state.requestId,
  });
  return {
    hold: async (
      ctx: Context,
      idempotencyKey: string | undefined,
      holdWith: (call: HoldCall) => Promise<unknown>,
    ) => {
      await rateLimit(ctx);
      ok(ctx, await holdWith(holdCall(ctx, idempotencyKey)));
    },
    release: async (ctx: Context, scope: ConfirmationScope, holdBatchId: string) => {
      ok(ctx, await releaseHold(deps, signedIn(ctx).userId, scope, holdBatchId));
    },
    confirm: async (
      ctx: Context,
      scope: ConfirmationScope,
      body: { hold_batch_id: string; idempotency_key: string },
      travellersOf: (owned: OwnedScope) => JourneyTravellers[],
    ) => {
      const call = { userId: signedIn(ctx).userId, scope, body, travellersOf, channel: channelOf(ctx) };
      const answer = await confirmOnce(deps, call);
      ctx.status = answer.status;
      ctx.body = answer.body;
    },
    read: async (ctx: Context, scope: ConfirmationScope) => {
      ok(ctx, await scopeProjection(deps.db, scope, signedIn(ctx).userId));
    },
  };
}

type ScopeHandlers = ReturnType<typeof scopeHandlers>;

export function registerJourneyHoldRoutes(surface: Surface, context: AppContext): void {
  const { config } = context;
  const deps: DirectDeps = {
    db: withPreparedReads(context.db),
    workflow: journeyConfirmationClient(context.temporal, config),
    settings: {
      holdMinutes: config.HOLD_MINUTES,
      timeScale: config.TIME_SCALE,
      caps: accountCaps(config),
      transfer: transferSettings(config),
      signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger },
    },
  };
  // One counter for journey and order holds.
  const rateLimit = perAccountHourlyLimit(
    context.db,
    'journey-hold',
    context.config.JOURNEY_HOLD_RATE_LIMIT_PER_HOUR,
  );
  const handlers = scopeHandlers(deps, rateLimit);
  registerJourneyRoutes(surface, deps, handlers);
  registerOrderRoutes(surface, deps, handlers);
}

function registerJourneyRoutes(surface: Surface, deps: DirectDeps, handlers: ScopeHandlers): void {
  surface.route({
    ...docs.holdJourney,
    method: 'post',
    path: '/journeys/{bookingId}/hold',
    ...HOLD_ROUTE,
    params: JourneyParams,
    body: JourneyHoldBody,
    handler: (ctx, { params, body }) =>
      handlers.hold(ctx, body.idempotency_key, (call) =>
        holdJourney(deps, call, { journeyId: params.bookingId, quoteId: body.quote_id }),
      ),
  });

  surface.route({
    ...docs.releaseJourneyHold,
    method: 'delete',
    path: '/journeys/{bookingId}/holds/{holdBatchId}',
    ...HOLD_ROUTE,
    params: JourneyHoldParams,
    handler: (ctx, { params }) =>
      handlers.release(ctx, { kind: 'JOURNEY', id: params.bookingId }, params.holdBatchId),
  });

  surface.route({
    ...docs.confirmJourney,
    method: 'post',
    path: '/journeys/{bookingId}/confirm',
    ...HOLD_ROUTE,
    params: JourneyParams,
    body: JourneyConfirmBody,
    handler: (ctx, { params, body }) =>
      handlers.confirm(ctx, { kind: 'JOURNEY', id: params.bookingId }, body, (owned) => {
        if (owned.journeys[0]!.quote_id !== body.quote_id)
          throw new Refusal(404, 'QUOTE_NOT_FOUND', 'This quote is not the one the journey was held from');
        return [{ journeyId: params.bookingId, travellers: body.travellers }];
      }),
  });

  surface.route({
    ...docs.getJourney,
    method: 'get',
    path: '/journeys/{bookingId}',
    ...HOLD_ROUTE,
    params: JourneyParams,
    handler: (ctx, { params }) => handlers.read(ctx, { kind: 'JOURNEY', id: params.bookingId }),
  });
}

/** The order's journeys, sorted: the set the order was held with. */
const sortedIds = (ids: string[]) => [...ids].sort().join();

function registerOrderRoutes(surface: Surface, deps: DirectDeps, handlers: ScopeHandlers): void {
  surface.route({
    ...docs.holdJourneyOrder,
    method: 'post',
    path: '/journey-orders/{orderId}/hold',
    ...HOLD_ROUTE,
    params: OrderParams,
    body: OrderHoldBody,
    handler: (ctx, { params, body }) =>
      handlers.hold(ctx, body.idempotency_key, (call) =>
        holdOrder(deps, call, { orderId: params.orderId, journeyIds: body.journey_ids }),
      ),
  });

  surface.route({
    ...docs.releaseJourneyOrderHold,
    method: 'delete',
    path: '/journey-orders/{orderId}/holds/{holdBatchId}',
    ...HOLD_ROUTE,
    params: OrderHoldParams,
    handler: (ctx, { params }) =>
      handlers.release(ctx, { kind: 'ORDER', id: params.orderId }, params.holdBatchId),
  });

  surface.route({
    ...docs.confirmJourneyOrder,
    method: 'post',
    path: '/journey-orders/{orderId}/confirm',
    ...HOLD_ROUTE,
    params: OrderParams,
    body: OrderConfirmBody,
    handler: (ctx, { params, body }) =>
      handlers.confirm(ctx, { kind: 'ORDER', id: params.orderId }, body, (owned) => {
        const sent = body.journeys.map((journey) => journey.journey_id);
        // The same code and status as the order's hold with another set (db/writes/journeys/draft.ts):
        // the body names journeys the order does not hold as they are.
        if (sortedIds(sent) !== sortedIds(owned.journeys.map((journey) => journey.id))) {
          throw new Refusal(409, 'ORDER_JOURNEYS_MISMATCH', 'Send every journey of the order exactly once');
        }
        return body.journeys.map((journey) => ({
          journeyId: journey.journey_id,
          travellers: journey.travellers,
        }));
      }),
  });

  surface.route({
    ...docs.getJourneyOrder,
    method: 'get',
    path: '/journey-orders/{orderId}',
    ...HOLD_ROUTE,
    params: OrderParams,
    handler: (ctx, { params }) => handlers.read(ctx, { kind: 'ORDER', id: params.orderId }),
  });
}
