import type { Context } from 'koa';
import type { RequestOrigin } from '../../db/writes/audit.js';

/** Who asks: the client IP and the request id, as audit rows record them. */
export const requestOrigin = (ctx: Context): RequestOrigin => ({
  ip: ctx.ip,
  requestId: ctx.state.requestId,
});
