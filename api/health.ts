import Router from '@koa/router';
import { databaseAnswers } from '../db/queries/health.js';
import type { AppContext } from './app.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './http/errors.js';

/** A dependency that does not answer within this time counts as unavailable. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * /healthz: the process answers. /readyz: PostgreSQL answers, and Temporal answers for the
 * namespace the API uses (TEMPORAL_NAMESPACE): a server without that namespace, or that refuses
 * it to this client, serves none of the API's workflow calls. Not ready is 503 with Retry-After, as
 * every other answer of a dependency that does not answer.
 */
export function healthRoutes({ db, temporal }: AppContext) {
  const router = new Router({ sensitive: true });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const withTimeout = <T>(work: Promise<T>) => {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
      });
      return Promise.race([work, expired]).finally(() => clearTimeout(timer));
    };
    const [database, workflows] = await Promise.allSettled([
      withTimeout(databaseAnswers(db, CHECK_TIMEOUT_MS)),
      // Under a deadline, so the client's own retries (about 20 s of them against a server that
      // refuses) end with the check instead of running on after every probe.
      withTimeout(
        temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
          temporal.workflowService.describeNamespace({ namespace: temporal.options.namespace }),
        ),
      ),
    ]);
    const checks = {
      database: database.status === 'fulfilled' ? 'ok' : 'unavailable',
      temporal: workflows.status === 'fulfilled' ? 'ok' : 'unavailable',
    };
    const ready = Object.values(checks).every((value) => value === 'ok');
    ctx.status = ready ? 200 : 503;
    if (!ready) ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
  });
  return router;
}
