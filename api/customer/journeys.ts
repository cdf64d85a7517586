import { quoteJourney } from '../../db/writes/quote.js';
import type { AppContext } from '../app.js';
import { accountCaps, requireHoldableParty } from '../http/abuse-limits.js';
import { clientKey } from '../http/client-address.js';
import { Refusal } from '../http/errors.js';
import { minuteLimiter, type RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { transferSettings } from '../../domain/journey-search.js';
import { journeySearch } from '../use-cases/journey-search.js';
import { docs, errorCodeOf, QuoteBody, SearchBody } from './journeys.openapi.js';
import { ok } from '../http/respond.js';

/**
 * The journey search's limit per client IP (SEARCH_RATE_LIMIT_PER_MINUTE). Built once per surface and
 * passed to both forms of the search (POST /journeys/search and the legacy GET /trips), so they spend
 * one budget: a client over it gets no more results by switching paths.
 */
export function journeySearchLimit({ config, db }: AppContext): RateLimiter {
  return minuteLimiter(db, 'journey-search', config.SEARCH_RATE_LIMIT_PER_MINUTE);
}

export function registerJourneyRoutes(surface: Surface, context: AppContext, searchLimit: RateLimiter): void {
  registerSearchRoute(surface, context, searchLimit);
  registerQuoteRoute(surface, context);
}

function registerSearchRoute(
  surface: Surface,
  { config, db, platform }: AppContext,
  searchLimit: RateLimiter,
): void {
  const search = journeySearch(db, config, platform.companyStanding);
  // Counted per client IP before anything else runs, invalid requests included.
  surface.router.post('/journeys/search', searchLimit.middleware(clientKey));

  surface.route({
    ...docs.searchJourneys,
    method: 'post',
    path: '/journeys/search',
    security: 'optionalTraveller',
    csrf: false,
    body: SearchBody,
    errorCode: errorCodeOf,
    handler: async (ctx, { body }) => {
      const answer = await search(ctx.state.scope, body);
      ctx.type = 'application/json';
      ctx.body = answer;
    },
  });
}

function registerQuoteRoute(surface: Surface, { config, db }: AppContext): void {
  const transfer = transferSettings(config);
  const caps = accountCaps(config);
  surface.route({
    ...docs.quoteJourney,
    method: 'post',
    path: '/journeys/quote',
    security: 'optionalTraveller',
    body: QuoteBody,
    errorCode: errorCodeOf,
    handler: async (ctx, { body }) => {
      // After the body's rules, before its legs: no hold could place a party past the held-seat caps.
      requireHoldableParty(caps, body.party_size, body.legs.length);
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
      ok(ctx, outcome.quote);
    },
  });
}
