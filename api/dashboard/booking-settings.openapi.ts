import { z } from 'zod';
import type { StoredBookingSettings } from '../../db/queries/booking-settings.js';
import { BOOKING_CHANNELS } from '../../domain/journey-confirmation.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** OpenAPI of the booking confirmation settings routes (booking-settings.ts): schemas and rules. */

/** SPEC "Booking confirmation settings": the decision window is 15 to 1440 minutes. */
const DECISION_WINDOW_MINUTES = { min: 15, max: 1440 } as const;

/**
 * Fields the server takes from the session; a body naming one is refused, not ignored, in any
 * spelling: a key is compared in lower case without `_` and `-` (companyId, COMPANY_ID, company-id).
 */
const SESSION_FIELDS = new Set(['companyid', 'actorid', 'updatedby', 'userid']);
const namesSessionField = (key: string) => SESSION_FIELDS.has(key.toLowerCase().replace(/[_-]/g, ''));

const Mode = z.enum(['AUTO_CONFIRM', 'MANUAL_CONFIRM']);
const Channel = z.enum(BOOKING_CHANNELS);

export const SettingsBody = z
  .object({
    mode: Mode,
    decisionWindowMinutes: z
      .int()
      .min(DECISION_WINDOW_MINUTES.min)
      .max(DECISION_WINDOW_MINUTES.max)
      .meta({ description: 'how long the company has to decide a journey request, 15 to 1440 minutes' }),
    channels: z
      .array(Channel)
      .min(1)
      .refine((channels) => new Set(channels).size === channels.length, 'must not name a channel twice')
      .meta({ uniqueItems: true, description: 'the booking channels the mode applies to; a non-empty set' }),
  })
  .strict();

const SettingsData = z.object({
  mode: Mode,
  decisionWindowMinutes: z.int(),
  channels: z.array(Channel),
  updatedBy: z
    .string()
    .nullable()
    .meta({ format: 'uuid', description: 'the company user who saved them; null: never saved' }),
  updatedAt: z
    .string()
    .nullable()
    .meta({ format: 'date-time', description: 'null: never saved, the defaults apply' }),
});
const SettingsResponse = successWith(SettingsData);

export function settingsData(settings: StoredBookingSettings): z.infer<typeof SettingsData> {
  return {
    mode: settings.mode,
    decisionWindowMinutes: settings.decisionWindowMinutes,
    channels: settings.channels,
    updatedBy: settings.updatedBy,
    updatedAt: settings.updatedAt?.toISOString() ?? null,
  };
}

/** A body that names the company or the actor gets its own code: the session decides both. */
export function settingsErrorCode(issues: z.core.$ZodIssue[], part: 'params' | 'query' | 'body'): string {
  const namesSession = issues.some(
    (issue) => issue.code === 'unrecognized_keys' && issue.keys.some(namesSessionField),
  );
  return part === 'body' && namesSession ? 'SESSION_FIELD_REFUSED' : 'VALIDATION_FAILED';
}

const RULES =
  'mode AUTO_CONFIRM confirms a journey at once; MANUAL_CONFIRM sends the company a request it must decide within ' +
  'decisionWindowMinutes (15 to 1440), and no later than the journey’s first departure, else the journey is ' +
  'cancelled. The mode applies to bookings from the listed ' +
  'channels (CUSTOMER_WEB, CUSTOMER_MOBILE, RESELLER; a non-empty set without repeats); bookings from other channels are ' +
  'confirmed at once. A company that never saved settings confirms automatically on every channel with a 15-minute window.';

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Dashboard: settings'], {
  getBookingConfirmationSettings: {
    summary: "The company's booking confirmation settings",
    description: `Any role of the session's company may read them. ${RULES}`,
    responses: answers(200, 'The settings in force', SettingsResponse, [401]),
  },
  putBookingConfirmationSettings: {
    summary: "Set the company's booking confirmation settings",
    description:
      `${RULES} The company and the actor come from the session: a body naming companyId, actorId, updatedBy or userId ` +
      'in any spelling (any case, with or without _ or -: CompanyID, COMPANY_ID, company-id) is refused with 400 ' +
      'SESSION_FIELD_REFUSED; any other unknown field or bad value is 400 VALIDATION_FAILED. Needs role OWNER or ADMIN ' +
      '(else 403 ROLE_NOT_ALLOWED) of an active (403 COMPANY_SUSPENDED), verified (403 COMPANY_NOT_VERIFIED) company, ' +
      'and the X-CSRF-Token header (403 CSRF_TOKEN_INVALID), the member judged as they stand when the change is made ' +
      '(signed out or deactivated meanwhile 401 INVALID_CREDENTIAL, no longer OWNER or ADMIN 403 ROLE_NOT_ALLOWED). The change ' +
      'applies to journeys confirmed from now on; requests already waiting keep their deadline. Recorded in the audit ' +
      'log (company.booking_settings.update).',
    responses: answers(200, 'The saved settings', SettingsResponse, [400, 401, 403]),
  },
});
