import { quoteJourney } from '../../db/writes/quote.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { journeySearch, transferSettings } from '../use-cases/journey-search.js';
import {
  errorCodeOf,
  QUOTE_DESCRIPTION,
  QuoteBody,
  QuoteResponse,
  SEARCH_DESCRIPTION,
  SearchBody,
  SearchResponse,
} from './journeys.openapi.js';

export function registerJourneyRoutes(surface: Surface, context: AppContext): void {
  registerSearchRoute(surface, context);
  registerQuoteRoute(surface, context);
}

function registerSearchRoute(surface: Surface, { config, db, platform }: AppContext): void {
  const search = journeySearch(db, config, platform.companyStanding);
  // Counted per client IP before anything else runs, invalid requests included.
  const searchLimit = createRateLimiter(db, {
    name: 'journey-search',
    points: config.SEARCH_RATE_LIMIT_PER_MINUTE,
    durationSeconds: 60,
  });
  surface.router.post(
    '/journeys/search',
    searchLimit.middleware((ctx) => ctx.ip),
  );

  surface.route({
    method: 'post',
    path: '/journeys/search',
    operationId: 'searchJourneys',
    summary: 'Search journeys between two cities or stops on one day',
    description: SEARCH_DESCRIPTION,
    tags: ['Journeys'],
    security: 'optionalTraveller',
    csrf: false,
    body: SearchBody,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'Journeys, possibly none', schema: SearchResponse },
      ...errorResponses(400, 401, 404, 429),
    },
    handler: async (ctx, { body }) => {
      const answer = await search(ctx.state.scope, body);
      ctx.type = 'application/json';
      ctx.body = answer;
    },
  });
}

function registerQuoteRoute(surface: Surface, { config, db }: AppContext): void {
  const transfer = transferSettings(config);
  surface.route({
    method: 'post',
    path: '/journeys/quote',
    operationId: 'quoteJourney',
    summary: 'Price legs and resources from a search result (holds nothing)',
    description: QUOTE_DESCRIPTION,
    tags: ['Journeys'],
    security: 'optionalTraveller',
    body: QuoteBody,
    errorCode: errorCodeOf,
    responses: {
      200: { description: 'The quote (or the stored one for a retry)', schema: QuoteResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const outcome = await quoteJourney(
        db,
        { scope: ctx.state.scope, ownerUserId: ctx.state.traveller?.userId ?? null },
        body,
        { transfer, ttlMinutes: config.QUOTE_TTL_MINUTES, now: new Date() },
      );
      if (outcome.refusal) {
        const { status, errorCode, message, details } = outcome.refusal;
        throw new Refusal(status, errorCode, message, details);
      }
      ctx.body = { success: true, data: outcome.quote };
    },
  });
}
