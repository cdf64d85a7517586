import type { AppContext } from '../app.js';
import { hourlyLimiter, ipLimitedRoute } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { signUpForWaitlist } from '../use-cases/waitlist.js';
import { docs, WaitlistBody } from './waitlist.openapi.js';
import { ok } from '../http/respond.js';

/** POST /waitlist: the coming-soon site's sign-up. */
export function registerWaitlistRoutes(surface: Surface, { db, config, platform }: AppContext): void {
  const perIp = hourlyLimiter(db, 'waitlist-ip', config.WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR);
  ipLimitedRoute(surface, perIp, {
    ...docs.joinWaitlist,
    method: 'post',
    path: '/waitlist',
    csrf: false,
    body: WaitlistBody,
    handler: async (ctx, { body }) => {
      await signUpForWaitlist(db, platform, body.email);
      ctx.status = 202;
      ok(ctx, { joined: true });
    },
  });
}
