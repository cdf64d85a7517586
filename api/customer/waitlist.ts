import type { AppContext } from '../app.js';
import { clientKey } from '../http/client-address.js';
import { hourlyLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { signUpForWaitlist } from '../use-cases/waitlist.js';
import { docs, WaitlistBody } from './waitlist.openapi.js';
import { ok } from '../http/respond.js';

/**
 * POST /waitlist: the coming-soon site's sign-up. Each sign-up the flag lets through counts against
 * the client IP's hourly limit (a body refused with 400 counts nothing, as on every IP-limited route).
 */
export function registerWaitlistRoutes(surface: Surface, { db, config, platform }: AppContext): void {
  const perIp = hourlyLimiter(db, 'waitlist-ip', config.WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR);
  surface.route({
    ...docs.joinWaitlist,
    method: 'post',
    path: '/waitlist',
    security: 'public',
    csrf: false,
    body: WaitlistBody,
    handler: async (ctx, { body }) => {
      await signUpForWaitlist(db, platform, body.email, () => perIp.consume(ctx, clientKey(ctx)));
      ctx.status = 202;
      ok(ctx, { joined: true });
    },
  });
}
