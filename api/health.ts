import Router from '@koa/router';
import type { AppContext } from './app.js';

/** /healthz: the process answers. /readyz: PostgreSQL and Temporal both answer. */
export function healthRoutes({ db, temporal }: AppContext) {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const withTimeout = <T>(work: Promise<T>) =>
      Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]);
    const [database, workflows] = await Promise.allSettled([
      withTimeout(db.query('select 1')),
      withTimeout(temporal.workflowService.getSystemInfo({})),
    ]);
    const checks = {
      database: database.status === 'fulfilled' ? 'ok' : 'unavailable',
      temporal: workflows.status === 'fulfilled' ? 'ok' : 'unavailable',
    };
    const ready = Object.values(checks).every((value) => value === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
  });
  return router;
}
