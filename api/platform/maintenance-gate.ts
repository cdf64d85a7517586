import type { Context, Next } from 'koa';
import { blockedDuringMaintenance, retryAfterSeconds } from '../../domain/maintenance.js';
import { Refusal } from '../http/errors.js';
import { databaseNow, type PlatformState } from './state.js';

/**
 * App-level middleware, before any route and before the body is read: while a maintenance window
 * is in force, a customer or dashboard write (domain/maintenance.ts `blockedDuringMaintenance`:
 * POST, PUT, PATCH and DELETE under /api and /dashboard/api, but for sign-in, the reads sent as
 * POST and the few writes listed there) answers 503 MAINTENANCE with Retry-After (seconds until
 * writes reopen: the window's end, carried through the windows that follow it without a gap) and
 * the window's message and that end in details. Windows are judged on the database's clock
 * (state.ts `databaseNow`), the one the administration lists them ACTIVE by. Reads, the administration and the driver app pass.
 */
export function maintenanceGate(state: PlatformState) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (blockedDuringMaintenance(ctx.method, ctx.path)) {
      const refusal = await state.maintenance();
      if (refusal) {
        // The error writer sets Retry-After from details.retryAfterSeconds.
        const seconds = retryAfterSeconds(refusal, new Date(databaseNow()));
        throw new Refusal(503, 'MAINTENANCE', 'The service is under maintenance; try again later', {
          message: refusal.message,
          endsAt: refusal.endsAt.toISOString(),
          retryAfterSeconds: seconds,
        });
      }
    }
    await next();
  };
}
