import { z } from 'zod';
import { DRIVER_APP_ROLES } from '../auth/driver-auth.js';
import { LoginBody } from '../dashboard/auth.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText as Id, successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of the driver app's sign-in (api/driver/auth.ts). */

const TAGS = ['Driver app: session'];

export { LoginBody as DriverLoginBody };

const Company = z.object({
  id: Id,
  name_en: z.string(),
  name_ar: z.string(),
  status: z.enum(['ACTIVE', 'SUSPENDED']),
});

export const DriverLoginResponse = successWith(
  z.object({
    token: z.string().meta({ description: 'send as Authorization: Bearer <token> on every driver app call' }),
    expiresAt: z
      .int()
      .meta({ description: 'Unix epoch seconds; the session also ends after 60 idle minutes' }),
    user: z.object({ id: Id, email: z.string(), name: z.string() }),
    membership: z.object({ companyId: Id, role: z.enum(DRIVER_APP_ROLES) }),
    company: Company,
  }),
);

export const DriverMeResponse = successWith(
  z.object({
    user: z.object({ id: Id, name: z.string() }),
    membership: z.object({ companyId: Id, role: z.enum(DRIVER_APP_ROLES) }),
  }),
);

export const OkResponse = z.object({ success: z.literal(true) });

export const docs = taggedOperations(TAGS, {
  driverLogin: {
    summary: 'Sign in to the driver app with e-mail and password',
    description:
      "A company user's account (the dashboard's accounts and passwords) with an active membership that works a bus: " +
      'DRIVER (preferred when the user has several), or OWNER, ADMIN or DISPATCHER. Opens a server-side session (the ' +
      "dashboard's sessions: 12 hours at most, 60 idle minutes) and returns its token for Authorization: Bearer; no " +
      'cookie is set, so driver app calls need no CSRF header. It is a driver app session: it never opens the dashboard ' +
      "(sent as the bb_staff cookie it is 401 INVALID_CREDENTIAL), while a dashboard session's token also works here as " +
      'the bearer token. A wrong password, an unknown e-mail, a disabled user and ' +
      'a user without such a membership all get the same 401 INVALID_CREDENTIALS. Rate limited like the dashboard ' +
      'sign-in (per IP and per e-mail address; 429 RATE_LIMITED with Retry-After).',
    responses: answers(200, 'Signed in', DriverLoginResponse, [400, 401, 429]),
  },
  driverLogout: {
    summary: 'End the driver app session',
    description: 'Revokes the session at once: its token no longer works.',
    responses: answers(200, 'Signed out', OkResponse, [401, 403]),
  },
  driverMe: {
    summary: 'The signed-in driver app user',
    responses: answers(200, 'The session', DriverMeResponse, [401, 403]),
  },
});
