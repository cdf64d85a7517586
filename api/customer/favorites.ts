import type { Context } from 'koa';
import type { Logger } from '../../config/logger.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { favoritesOf, removeTravellerFavorite, saveTravellerFavorite } from '../use-cases/favorites.js';
import { docs, FavoriteBody, favoriteErrorCode, FavoriteQuery } from './favorites.openapi.js';

/** GET, POST and DELETE /favorites: the signed-in traveller's favorite routes. */
export function registerFavoriteRoutes(surface: Surface, { db, logger, config }: AppContext): void {
  const guarded = guardedBy(logger);

  surface.route({
    ...docs.listFavoriteRoutes,
    method: 'get',
    path: '/favorites',
    security: 'traveller',
    handler: async (ctx) => {
      const favorites = await guarded(ctx, 'FAVORITES_LOOKUP_FAILED', (userId) => favoritesOf(db, userId));
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = { success: true, favorites };
    },
  });

  surface.route({
    ...docs.saveFavoriteRoute,
    method: 'post',
    path: '/favorites',
    security: 'traveller',
    body: FavoriteBody,
    errorCode: favoriteErrorCode,
    handler: async (ctx, { body }) => {
      const saved = await guarded(ctx, 'FAVORITE_SAVE_FAILED', (userId) =>
        saveTravellerFavorite(db, userId, body, config.FAVORITES_MAX),
      );
      ctx.status = saved.alreadySaved ? 200 : 201;
      ctx.body = { success: true, alreadySaved: saved.alreadySaved, favorite: saved.favorite };
    },
  });

  surface.route({
    ...docs.removeFavoriteRoute,
    method: 'delete',
    path: '/favorites',
    security: 'traveller',
    query: FavoriteQuery,
    errorCode: favoriteErrorCode,
    handler: async (ctx, { query }) => {
      const removed = await guarded(ctx, 'FAVORITE_REMOVE_FAILED', (userId) =>
        removeTravellerFavorite(db, userId, query),
      );
      ctx.body = { success: true, removed };
    },
  });
}

/**
 * Runs the database work of one route for the signed-in traveller; a failure that is not a refusal
 * becomes the route's SPEC 500 code. The raw error goes to the log only.
 */
function guardedBy(logger: Logger) {
  return async <T>(ctx: Context, errorCode: string, work: (userId: string) => Promise<T>): Promise<T> => {
    const userId = ctx.state.traveller!.userId;
    try {
      return await work(userId);
    } catch (error) {
      if (error instanceof Refusal) throw error;
      logger.error({ requestId: ctx.state.requestId, err: error }, `favorites: ${errorCode}`);
      throw new Refusal(500, errorCode, 'Favorite routes are unavailable right now; try again later');
    }
  };
}
