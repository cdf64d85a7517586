import { z } from 'zod';
import { INCIDENT_SEVERITIES, INCIDENT_STATUSES, OPEN_INCIDENT_STATUSES } from '../../domain/incidents.js';
import { MAINTENANCE_MAX_HOURS } from '../../domain/maintenance.js';
import { operations } from '../http/route.js';
import { InstantInput, Pagination, PrintedProse, PrintedText, textRule } from '../http/schemas.js';
import { ReasonBody } from './companies.openapi.js';
import { DateTime, IdText, pageAnswer } from './schemas.js';
import { answers } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the platform operations routes (api/admin/operations.ts): feature flags,
 * incidents and maintenance windows.
 */
const FLAG_TAGS = ['Administration: feature flags'];
const INCIDENT_TAGS = ['Administration: incidents'];
const MAINTENANCE_TAGS = ['Administration: maintenance'];

const BooleanText = z.enum(['true', 'false']).transform((value) => value === 'true');
const atLeastOne = (body: Record<string, unknown>) =>
  Object.values(body).some((value) => value !== undefined);

export const FlagParams = z
  .object({ key: z.string().regex(/^[a-z][a-z0-9_.]{0,63}$/, 'must be a flag key such as waitlist.signup') })
  .strict();

export const FlagBody = z.object({ enabled: z.boolean(), reason: ReasonBody.shape.reason }).strict();

const FeatureFlag = z
  .object({
    key: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    defaultEnabled: z.boolean(),
    setByOperator: z.boolean().meta({ description: 'false: no operator has set it, it has its default' }),
    updatedAt: DateTime.nullable(),
    updatedBy: z.object({ id: IdText, name: z.string() }).nullable(),
  })
  .meta({ id: 'FeatureFlag' });

const FlagList = successWith(z.object({ items: z.array(FeatureFlag) }));
const FlagRecord = successWith(FeatureFlag);

export const IncidentQuery = z
  .object({
    status: z.enum(INCIDENT_STATUSES).optional(),
    open: BooleanText.optional().meta({ description: 'true: not resolved; false: resolved' }),
    severity: z.enum(INCIDENT_SEVERITIES).optional(),
    ...Pagination,
  })
  .strict();

/**
 * An incident's title is one line and its description and resolution prose, read by administrators:
 * no control or bidirectional-override character, which could make one text read as another (the
 * prose keeps its line breaks and tabs).
 */
const Title = PrintedText(3, 200).meta({ description: textRule(3, 200, 'line') });
const Description = PrintedProse(0, 5000);

export const NewIncidentBody = z
  .object({
    title: Title,
    description: Description.default(''),
    severity: z.enum(INCIDENT_SEVERITIES),
    status: z.enum(OPEN_INCIDENT_STATUSES).default('INVESTIGATING'),
    startedAt: InstantInput.refine(
      // A minute's allowance for the difference between the administrator's clock and ours.
      (value) => Date.parse(value) <= Date.now() + 60_000,
      'an incident cannot start later than now',
    )
      .optional()
      .meta({ description: 'when it began, not later than now; now by default' }),
  })
  .strict();

export const IncidentChangeBody = z
  .object({
    title: Title.optional(),
    description: Description.optional(),
    severity: z.enum(INCIDENT_SEVERITIES).optional(),
    status: z.enum(OPEN_INCIDENT_STATUSES).optional(),
  })
  .strict()
  .refine(atLeastOne, 'send at least one field to change')
  .meta({ minProperties: 1 });

export const ResolveBody = z
  .object({
    resolution: PrintedProse(3, 2000),
  })
  .strict();

const Incident = z
  .object({
    id: IdText,
    title: z.string(),
    description: z.string(),
    severity: z.enum(INCIDENT_SEVERITIES),
    status: z.enum(INCIDENT_STATUSES),
    resolution: z.string().nullable(),
    startedAt: DateTime,
    resolvedAt: DateTime.nullable(),
    createdBy: IdText.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Incident' });

const MaintenanceState = z.enum(['SCHEDULED', 'ACTIVE', 'ENDED', 'CANCELLED']);

export const MaintenanceQuery = z.object({ state: MaintenanceState.optional(), ...Pagination }).strict();

export const NewWindowBody = z
  .object({
    // Travellers' and companies' apps show it as the notice of a refused write (503 MAINTENANCE's
    // details.message): one line, and nothing that could make it read as another text.
    message: PrintedText(3, 500).meta({
      description:
        'shown to callers refused during the window (503 MAINTENANCE details.message); 3 to 500 characters, one ' +
        'line: no control or bidirectional-override character',
    }),
    startsAt: InstantInput,
    endsAt: InstantInput,
  })
  .strict();

export const WindowChangeBody = z
  .object({
    message: NewWindowBody.shape.message.optional(),
    startsAt: InstantInput.optional(),
    endsAt: InstantInput.optional(),
  })
  .strict()
  .refine(atLeastOne, 'send at least one field to change')
  .meta({ minProperties: 1 });

const MaintenanceWindow = z
  .object({
    id: IdText,
    message: z.string(),
    startsAt: DateTime,
    endsAt: DateTime,
    state: MaintenanceState,
    cancelledAt: DateTime.nullable(),
    createdBy: IdText.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'MaintenanceWindow' });

const MaintenanceList = successWith(
  z.object({
    active: MaintenanceWindow.nullable().meta({
      description:
        'the window in force now, if any: the one the gate enforces (of overlapping ones, the one ending last)',
    }),
    items: z.array(MaintenanceWindow),
    total: z.int(),
    limit: z.int(),
    offset: z.int(),
  }),
);

const VIEW = 'Needs platform.view (else 403 PERMISSION_DENIED naming it).';
const MANAGES = (permission: string) =>
  `Needs ${permission} (else 403 PERMISSION_DENIED naming it), checked again inside the change: an account ` +
  'disabled or demoted while the request runs gets 401 INVALID_CREDENTIAL or 403 and the change writes nothing. ' +
  'Unknown fields are refused (400 VALIDATION_FAILED).';
const GATE =
  'While a window is in force, every customer (/api) and dashboard (/dashboard/api) write answers 503 MAINTENANCE ' +
  "with Retry-After (seconds until writes reopen) and details {message, endsAt}: endsAt is the window's end, carried " +
  'on through every window that starts at or before it (back-to-back or overlapping). Reads keep working, and so do ' +
  'sign-in, sign-out and session refresh (travellers and staff must reach their bookings and tickets), journey ' +
  "search, voucher preview, opening a shared document, revoking a share and a company's decision on a journey " +
  "request (PATCH /dashboard/api/bookings/{id}/status: its deadline keeps running), and the operations room's " +
  "action on a trip (POST /dashboard/api/trips/{id}/dispatch, every action: the day's trips board, depart, arrive, " +
  'complete, are delayed or cancelled, and the driver app boards only a trip in BOARDING; POST /dashboard/api/trips/bulk ' +
  'and PATCH /dashboard/api/trips/{id} stay refused). The administration and the driver app (boarding) are never ' +
  'blocked. Every API process sees a change within PLATFORM_STATE_POLL_SECONDS (2 s).';

/** The docs of each route, in the order they are registered. */
export const docs = operations({
  adminListFeatureFlags: {
    summary: 'Feature flags and their values',
    description:
      `${VIEW} Every flag the platform reads (its catalogue is in the code), with its value: the one an operator set, ` +
      'else its default. Every API process reads flags through a cache that a change invalidates within ' +
      'PLATFORM_STATE_POLL_SECONDS (2 s): each process polls a change counter the change bumps in its transaction.',
    tags: FLAG_TAGS,
    responses: answers(200, 'The flags', FlagList, [401, 403]),
  },
  adminSetFeatureFlag: {
    summary: 'Turn a feature flag on or off',
    description:
      `${MANAGES('flags.manage')} Body {enabled, reason}. 404 FEATURE_FLAG_NOT_FOUND for a key the platform does not ` +
      'read. Recorded in the audit log (feature_flags.update, with the value before and after and the reason) in the ' +
      'same transaction; in force in every API process within 2 seconds. Answers the flag as this change left it ' +
      '(not a change committed right after); setting the value the flag has writes nothing and answers it unchanged.',
    tags: FLAG_TAGS,
    responses: answers(200, 'The flag now', FlagRecord, [400, 401, 403, 404]),
  },
  adminListIncidents: {
    summary: 'Platform incidents',
    description: `${VIEW} Newest first; filters status, open, severity; limit (default 20, at most 100) and offset.`,
    tags: INCIDENT_TAGS,
    responses: answers(200, 'A page of incidents', pageAnswer(Incident), [400, 401, 403]),
  },
  adminCreateIncident: {
    summary: 'Open an incident',
    description:
      `${MANAGES('incidents.manage')} States: INVESTIGATING, IDENTIFIED, MONITORING (an open incident moves freely ` +
      'between them), RESOLVED (final, only through POST /incidents/{id}/resolve). Severities MINOR, MAJOR, CRITICAL. ' +
      'A startedAt later than now (a minute allowed for clock difference) is 400 VALIDATION_FAILED. ' +
      'Recorded in the audit log (incidents.create).',
    tags: INCIDENT_TAGS,
    responses: answers(201, 'Opened', successWith(Incident), [400, 401, 403]),
  },
  adminUpdateIncident: {
    summary: 'Update an open incident',
    description:
      `${MANAGES('incidents.manage')} Title, description, severity or an open status. A resolved incident is 409 ` +
      'INCIDENT_RESOLVED; a status move the state table (domain/incidents.ts) does not allow is 409 ' +
      'INCIDENT_TRANSITION_REFUSED (none today: open states move freely among themselves); 404 INCIDENT_NOT_FOUND. ' +
      'Recorded (incidents.update, before and after); a change that changes nothing answers the incident as it is ' +
      'and writes nothing.',
    tags: INCIDENT_TAGS,
    responses: answers(200, 'Updated', successWith(Incident), [400, 401, 403, 404, 409]),
  },
  adminResolveIncident: {
    summary: 'Resolve an incident',
    description:
      `${MANAGES('incidents.manage')} Body {resolution}. RESOLVED is final (a second resolve is 409 INCIDENT_RESOLVED). ` +
      'resolvedAt is now, or startedAt when that is later (an incident opened up to a minute ahead of now), never ' +
      'before it. Recorded (incidents.resolve).',
    tags: INCIDENT_TAGS,
    responses: answers(200, 'Resolved', successWith(Incident), [400, 401, 403, 404, 409]),
  },
  adminListMaintenance: {
    summary: 'Maintenance windows',
    description:
      `${VIEW} The window in force now (active: the one the gate enforces; when windows overlap, the one ending ` +
      'last, whose message the refused writes carry; their endsAt is its end, or later when another window starts at ' +
      `or before it) and every window by state (SCHEDULED, ACTIVE, ENDED, CANCELLED), newest start first. ${GATE}`,
    tags: MAINTENANCE_TAGS,
    responses: answers(200, 'The windows', MaintenanceList, [400, 401, 403]),
  },
  adminScheduleMaintenance: {
    summary: 'Schedule a maintenance window',
    description:
      `${MANAGES('maintenance.manage')} {message, startsAt, endsAt}: the window must end after it starts and in the ` +
      `future (400 MAINTENANCE_WINDOW_INVALID) and last at most ${MAINTENANCE_MAX_HOURS} hours (400 ` +
      'MAINTENANCE_WINDOW_TOO_LONG); a start in the past begins it at once. Recorded (maintenance.create). ' +
      GATE,
    tags: MAINTENANCE_TAGS,
    responses: answers(201, 'Scheduled', successWith(MaintenanceWindow), [400, 401, 403]),
  },
  adminUpdateMaintenance: {
    summary: "Change a maintenance window's message or times",
    description:
      `${MANAGES('maintenance.manage')} The same time rules as scheduling. An ended or cancelled window is 409 ` +
      'MAINTENANCE_WINDOW_CLOSED; an active one keeps its start (moving it is 409 MAINTENANCE_WINDOW_ACTIVE; the ' +
      'start it has, sent again, is no move) but may change its message and end. 404 MAINTENANCE_WINDOW_NOT_FOUND. Recorded (maintenance.update, before and after); a change ' +
      'that changes nothing answers the window as it is and writes nothing.',
    tags: MAINTENANCE_TAGS,
    responses: answers(200, 'Changed', successWith(MaintenanceWindow), [400, 401, 403, 404, 409]),
  },
  adminCancelMaintenance: {
    summary: 'Cancel a maintenance window (an active one ends at once)',
    description:
      `${MANAGES('maintenance.manage')} Body {reason}. An ended or cancelled window is 409 MAINTENANCE_WINDOW_CLOSED. ` +
      'Recorded (maintenance.cancel).',
    tags: MAINTENANCE_TAGS,
    responses: answers(200, 'Cancelled', successWith(MaintenanceWindow), [400, 401, 403, 404, 409]),
  },
});
