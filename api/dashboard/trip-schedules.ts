import { listTripSchedules } from '../../db/queries/trip-schedules.js';
import type { AppContext } from '../app.js';
import { created, ok, page } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { tripScheduleClient } from '../temporal/trip-schedule-client.js';
import {
  commitSchedule,
  previewSchedule,
  scheduleRequest,
  scheduleWithProgress,
} from '../use-cases/trip-schedules.js';
import { planner, planningErrorCode, planningReader } from './planning-schemas.js';
import { docs, ScheduleBody, ScheduleParams, SchedulesQuery } from './trip-schedules.openapi.js';

/** GET /trip-schedules, GET /trip-schedules/{id} and POST /trip-schedules (preview or commit). */
export function registerTripScheduleRoutes(
  surface: Surface,
  { db, temporal, config, logger }: AppContext,
): void {
  const schedules = tripScheduleClient(temporal, config, logger);

  surface.route({
    ...docs.listTripSchedules,
    method: 'get',
    path: '/trip-schedules',
    security: 'companyStaff',
    query: SchedulesQuery,
    handler: async (ctx, { query }) => {
      const staff = planningReader(ctx);
      const { schedules: list, total } = await listTripSchedules(db, staff.companyId, query);
      page(ctx, list, query, total);
    },
  });

  surface.route({
    ...docs.getTripSchedule,
    method: 'get',
    path: '/trip-schedules/{id}',
    security: 'companyStaff',
    params: ScheduleParams,
    handler: async (ctx, { params }) => {
      const staff = planningReader(ctx);
      ok(ctx, await scheduleWithProgress({ db, schedules }, staff.companyId, params.id));
    },
  });

  surface.route({
    ...docs.postTripSchedule,
    method: 'post',
    path: '/trip-schedules',
    security: 'companyStaff',
    body: ScheduleBody,
    errorCode: planningErrorCode,
    handler: async (ctx, { body }) => {
      const staff = planner(ctx);
      const request = scheduleRequest(body);
      if (!body.commit) {
        ctx.body = {
          success: true,
          preview: true,
          data: await previewSchedule(db, staff.companyId, request),
        };
        return;
      }
      const answer = await commitSchedule(
        { db, schedules, batchSize: config.SCHEDULE_BATCH_SIZE },
        staff,
        request,
        body.skip_conflicts,
      );
      if (answer.status === 201) {
        created(ctx, answer.schedule);
        return;
      }
      ctx.status = answer.status;
      const progressUrl = `/dashboard/api/trip-schedules/${answer.scheduleId}`;
      ctx.set('Location', progressUrl);
      ctx.body = {
        success: true,
        data: { id: answer.scheduleId, status: 'COMMITTING', progress: answer.progress },
        progress_url: progressUrl,
      };
    },
  });
}
