import { listTripSchedules } from '../../db/queries/trip-schedules.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { tripScheduleClient } from '../temporal/trip-schedule-client.js';
import {
  commitSchedule,
  previewSchedule,
  scheduleRequest,
  scheduleWithProgress,
} from '../use-cases/trip-schedules.js';
import { planner, planningErrorCode, planningReader, staffAct } from './planning-schemas.js';
import { companyPageRoute, staffRoute } from './staff-route.js';
import { docs, ScheduleBody, ScheduleParams, SchedulesQuery } from './trip-schedules.openapi.js';

/** GET /trip-schedules, GET /trip-schedules/{id} and POST /trip-schedules (preview or commit). */
export function registerTripScheduleRoutes(
  surface: Surface,
  { db, temporal, config, logger }: AppContext,
): void {
  const schedules = tripScheduleClient(temporal, config, logger);

  const schedulesPage = {
    ...docs.listTripSchedules,
    path: '/trip-schedules',
    query: SchedulesQuery,
    guard: planningReader,
  };
  companyPageRoute(surface, schedulesPage, 'schedules', (companyId, query) =>
    listTripSchedules(db, companyId, query),
  );

  staffRoute(surface, planningReader, {
    ...docs.getTripSchedule,
    method: 'get',
    path: '/trip-schedules/{id}',
    params: ScheduleParams,
    handler: async (ctx, staff, { params }) => {
      ok(ctx, await scheduleWithProgress({ db, schedules }, staff.companyId, params.id));
    },
  });

  staffRoute(surface, planner, {
    ...docs.postTripSchedule,
    method: 'post',
    path: '/trip-schedules',
    body: ScheduleBody,
    errorCode: planningErrorCode,
    handler: async (ctx, staff, { body }) => {
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
        staffAct(ctx, staff),
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
