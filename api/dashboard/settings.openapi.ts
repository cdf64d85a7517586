import { z } from 'zod';
import type { CompanySettingsView } from '../../db/queries/company-settings.js';
import { CANCELLATION_CUTOFF_MINUTES } from '../../domain/company-settings.js';
import { normalisePhone } from '../../domain/phone.js';
import { Email, PhoneInput, PrintedText, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of GET and PATCH /settings (settings.ts): the company's profile and operating settings. */

const TAGS = ['Dashboard: settings'];

const Name = PrintedText(2, 120);
/** Printed on the company's reports: no control or bidirectional-override characters (400 VALIDATION_FAILED). */
const Address = PrintedText(0, 300);
const Phone = PhoneInput.transform((value, context) => {
  const e164 = normalisePhone(value);
  if (!e164) context.addIssue({ code: 'custom', message: 'must be a phone number in international format' });
  return e164 ?? value;
}).meta({
  description: 'international format (+963...) or a Syrian number with its trunk 0; stored as E.164',
});

export const SettingsPatch = z
  .object({
    nameAr: Name.optional().meta({ description: 'the company name in Arabic' }),
    nameEn: Name.optional().meta({ description: 'the company name in English' }),
    phone: Phone.nullable().optional(),
    email: Email().toLowerCase().nullable().optional(),
    addressAr: Address.optional(),
    addressEn: Address.optional(),
    cancellationCutoffMinutes: z
      .int()
      .min(CANCELLATION_CUTOFF_MINUTES.min)
      .max(CANCELLATION_CUTOFF_MINUTES.max)
      .nullable()
      .optional()
      .meta({
        description:
          "minutes before departure until which the company's travellers may cancel (0 to 10080); null: the platform default",
      }),
    defaultPickupLocationId: Uuid.nullable()
      .optional()
      .meta({
        description:
          'one of the company’s own enabled pickup points, by the id GET and POST /pickup-locations show for it ' +
          '(defaultPickupLocation.id); null clears it',
      }),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'name at least one setting to change')
  .meta({ minProperties: 1 });

const SettingsData = z.object({
  company: z.object({
    id: IdText,
    slug: z.string(),
    nameAr: z.string(),
    nameEn: z.string(),
    status: z.enum(['ACTIVE', 'SUSPENDED']),
    verified: z.boolean(),
    published: z.boolean(),
  }),
  contact: z.object({
    phone: z.string().nullable(),
    email: z.string().nullable(),
    addressAr: z.string(),
    addressEn: z.string(),
  }),
  operations: z.object({
    cancellationCutoffMinutes: z
      .int()
      .nullable()
      .meta({ description: "the company's own cut-off; null: none set" }),
    effectiveCancellationCutoffMinutes: z
      .int()
      .meta({ description: 'the cut-off in force: the company’s own, else the platform default' }),
    defaultPickupLocation: z
      .object({
        id: IdText.meta({
          description: 'the pickup point’s id as GET and POST /pickup-locations show it; PATCH takes it back',
        }),
        stopId: IdText.meta({ description: 'the same id as id, kept for clients that read it' }),
        nameAr: z.string(),
        nameEn: z.string(),
        city: z.object({ id: IdText, nameAr: z.string(), nameEn: z.string() }),
      })
      .nullable(),
  }),
  updatedBy: z
    .string()
    .nullable()
    .meta({ format: 'uuid', description: 'null: never changed through the dashboard' }),
  updatedAt: z.string().nullable().meta({ format: 'date-time' }),
});
const SettingsResponse = successWith(SettingsData);

export function settingsData(
  view: CompanySettingsView,
  platformCutoff: number,
): z.infer<typeof SettingsData> {
  const pickup = view.defaultPickupLocation;
  return {
    company: {
      id: view.companyId,
      slug: view.slug,
      nameAr: view.nameAr,
      nameEn: view.nameEn,
      status: view.status,
      verified: view.verified,
      published: view.published,
    },
    contact: { phone: view.phone, email: view.email, addressAr: view.addressAr, addressEn: view.addressEn },
    operations: {
      cancellationCutoffMinutes: view.cancellationCutoffMinutes,
      effectiveCancellationCutoffMinutes: view.cancellationCutoffMinutes ?? platformCutoff,
      defaultPickupLocation: pickup && {
        id: pickup.stopId,
        stopId: pickup.stopId,
        nameAr: pickup.nameAr,
        nameEn: pickup.nameEn,
        city: { id: pickup.cityId, nameAr: pickup.cityNameAr, nameEn: pickup.cityNameEn },
      },
    },
    updatedBy: view.updatedBy,
    updatedAt: view.updatedAt?.toISOString() ?? null,
  };
}

const WHAT =
  'The company profile and operating settings: names in Arabic and English, contact (phone, e-mail, address in both ' +
  'languages), the cancellation cut-off (minutes before departure until which its travellers may cancel an unpaid ' +
  'booking themselves; without one the platform default BOOKING_CANCEL_CUTOFF_MINUTES, 120, applies) and the default ' +
  'pickup point trip planning offers first.';

export const docs = taggedOperations(TAGS, {
  getCompanySettings: {
    summary: "The signed-in user's company settings",
    description: `${WHAT} Any dashboard role of the company may read them (of a suspended company too).`,
    responses: answers(200, 'The settings', SettingsResponse, [401]),
  },
  updateCompanySettings: {
    summary: "Change the company's settings",
    description:
      `${WHAT} Only the fields sent change (at least one; null clears phone, e-mail, the cut-off and the default ` +
      'pickup point). Needs role OWNER or ADMIN (403 ROLE_NOT_ALLOWED) of an active company (403 COMPANY_SUSPENDED) and ' +
      'X-CSRF-Token (403 CSRF_TOKEN_INVALID), the member judged as they stand when the change is made (signed out or ' +
      'deactivated meanwhile 401 INVALID_CREDENTIAL, no longer OWNER or ADMIN 403 ROLE_NOT_ALLOWED); a company need not be verified yet, since it completes its profile ' +
      'before verification. The company comes from the session: a body naming companyId, actorId, updatedBy or ' +
      'userId is 400 SESSION_FIELD_REFUSED; other unknown fields and bad values are 400 VALIDATION_FAILED and change ' +
      'nothing. The default pickup point is named by the id GET and POST /pickup-locations show for it and must be an ' +
      'enabled pickup point of the company (422 PICKUP_LOCATION_NOT_OWNED). ' +
      'A new cut-off applies to cancellations from then on. Recorded in the audit log (company.settings.update) with ' +
      'the before and after of each field changed.',
    responses: answers(200, 'The settings after the change', SettingsResponse, [400, 401, 403, 422]),
  },
});
