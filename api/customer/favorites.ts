import type { Context } from 'koa';
import type { Logger } from '../../config/logger.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { favoritesOf, removeTravellerFavorite, saveTravellerFavorite } from '../use-cases/favorites.js';
import {
  CHANGE_ERRORS,
  describe,
  FavoriteBody,
  favoriteErrorCode,
  FavoriteQuery,
  FavoriteRemoved,
  FavoritesList,
  FavoriteSaved,
  TAGS,
} from './favorites.openapi.js';

/** GET, POST and DELETE /favorites: the signed-in traveller's favorite routes. */
export function registerFavoriteRoutes(surface: Surface, { db, logger }: AppContext): void {
  const guarded = guardedBy(logger);

  surface.route({
    method: 'get',
    path: '/favorites',
    operationId: 'listFavoriteRoutes',
    summary: "The signed-in traveller's favorite routes, newest first",
    description: describe.list,
    tags: TAGS,
    security: 'traveller',
    responses: {
      200: { description: 'Favorite routes', schema: FavoritesList },
      ...errorResponses(401, 409, 500),
    },
    handler: async (ctx) => {
      const userId = ctx.state.traveller!.userId;
      const favorites = await guarded(ctx, 'FAVORITES_LOOKUP_FAILED', () => favoritesOf(db, userId));
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = { success: true, favorites };
    },
  });

  surface.route({
    method: 'post',
    path: '/favorites',
    operationId: 'saveFavoriteRoute',
    summary: 'Save a favorite route (idempotent)',
    description: describe.save,
    tags: TAGS,
    security: 'traveller',
    body: FavoriteBody,
    errorCode: favoriteErrorCode,
    responses: {
      200: { description: 'Already saved', schema: FavoriteSaved },
      201: { description: 'Saved', schema: FavoriteSaved },
      ...CHANGE_ERRORS,
    },
    handler: async (ctx, { body }) => {
      const userId = ctx.state.traveller!.userId;
      const saved = await guarded(ctx, 'FAVORITE_SAVE_FAILED', () => saveTravellerFavorite(db, userId, body));
      ctx.status = saved.alreadySaved ? 200 : 201;
      ctx.body = { success: true, alreadySaved: saved.alreadySaved, favorite: saved.favorite };
    },
  });

  surface.route({
    method: 'delete',
    path: '/favorites',
    operationId: 'removeFavoriteRoute',
    summary: 'Remove a favorite route',
    description: describe.remove,
    tags: TAGS,
    security: 'traveller',
    query: FavoriteQuery,
    errorCode: favoriteErrorCode,
    responses: {
      200: { description: 'Removed, or was not saved', schema: FavoriteRemoved },
      ...CHANGE_ERRORS,
    },
    handler: async (ctx, { query }) => {
      const userId = ctx.state.traveller!.userId;
      const removed = await guarded(ctx, 'FAVORITE_REMOVE_FAILED', () =>
        removeTravellerFavorite(db, userId, query),
      );
      ctx.body = { success: true, removed };
    },
  });
}

/**
 * Runs the database work of one route; a failure that is not a refusal becomes the route's SPEC
 * 500 code. The raw error goes to the log only.
 */
function guardedBy(logger: Logger) {
  return async <T>(ctx: Context, errorCode: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Refusal) throw error;
      logger.error({ requestId: ctx.state.requestId, err: error }, `favorites: ${errorCode}`);
      throw new Refusal(500, errorCode, 'Favorite routes are unavailable right now; try again later');
    }
  };
}
