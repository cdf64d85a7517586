import { z } from 'zod';
import { LAYOUT_SCHEMA_VERSION } from '../../domain/seat-layout.js';
import { BUS_AMENITIES, plateForm } from '../../domain/trip-planning.js';
import {
  Email,
  errorResponses,
  LetteredName,
  NAME_LETTER_RULE,
  Pagination,
  PrintedProse,
  PrintedText,
  textRule,
} from '../http/schemas.js';
import { DateTime, namedErrorCode, ok, page, Text, UuidOut, WRITE_RULES } from './planning-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/** OpenAPI of the fleet routes (fleet.ts): bus templates, buses, their layouts, drivers. */

const TAGS = ['Dashboard: fleet'];

/** More elements than any coach has; a larger document is refused before it is looked at. */
export const MAX_LAYOUT_ELEMENTS = 500;

const ROTATIONS = [0, 90, 180, 270];
const SEAT_IDENTITY = {
  required: ['seatId', 'seatNumber'],
  properties: { seatId: { pattern: '\\S' }, seatNumber: { pattern: '\\S' } },
};

const ElementKind = z.enum(['seat', 'aisle', 'door', 'driver', 'stairs', 'toilet', 'table']);

const LayoutElement = z
  .object({
    type: ElementKind,
    x: z.int(),
    y: z.int(),
    width: z.int(),
    height: z.int(),
    rotation: z.int().meta({ description: '0, 90, 180 or 270', enum: [...ROTATIONS] }),
    deck: z.int().meta({ description: '1 (lower) up to grid.decks' }),
    seatId: z
      .string()
      .min(1)
      .max(40)
      .optional()
      .meta({ description: 'stable identity of a seat; never changes' }),
    seatNumber: PrintedText(1, 12)
      .optional()
      .meta({ description: 'the label travellers see, stored trimmed; may change' }),
    seatClass: z.enum(['STANDARD', 'VIP']).optional(),
    // Staff read it in the dashboard: prose (line breaks and tabs), nothing that makes it read as another text.
    notes: PrintedProse(0, 500)
      .optional()
      .meta({ description: `management note, never shown to travellers; ${textRule(0, 500, 'prose')}` }),
  })
  .strict()
  // domain/seat-layout.ts: a seat needs a seatId and a seatNumber with something besides spaces in them.
  .meta({ anyOf: [{ properties: { type: { not: { const: 'seat' } } } }, SEAT_IDENTITY] });

export const LayoutDocumentSchema = z
  .object({
    schemaVersion: z.int().meta({ const: LAYOUT_SCHEMA_VERSION }),
    grid: z
      .object({ columns: z.int().min(1).max(20), rows: z.int().min(1).max(40), decks: z.int().min(1).max(2) })
      .strict(),
    elements: z
      .array(LayoutElement)
      .max(MAX_LAYOUT_ELEMENTS, `a layout has at most ${MAX_LAYOUT_ELEMENTS} elements`)
      .meta({ contains: { properties: { type: { const: 'seat' } } } }),
  })
  .strict()
  .meta({ id: 'BusLayoutDocument' });

export const LayoutBody = z
  .object({
    layoutDocument: LayoutDocumentSchema.optional(),
    layout_document: LayoutDocumentSchema.optional(),
    saveMode: z.enum(['draft', 'active']),
  })
  .strict()
  .refine((body) => (body.layoutDocument === undefined) !== (body.layout_document === undefined), {
    message: 'send the document as layoutDocument or layout_document, exactly one of them',
    path: ['layoutDocument'],
    params: { errorCode: 'LAYOUT_DOCUMENT_REQUIRED' },
  })
  .meta({
    description: 'The document under exactly one of its two names (else 400 LAYOUT_DOCUMENT_REQUIRED).',
    oneOf: [{ required: ['layoutDocument'] }, { required: ['layout_document'] }],
  });

/** Layout validation issues carry the code LAYOUT_INVALID unless a more specific one applies. */
export function layoutErrorCode(issues: z.core.$ZodIssue[], part: 'params' | 'query' | 'body'): string {
  if (part !== 'body') return 'VALIDATION_FAILED';
  const named = namedErrorCode(issues);
  if (named) return named;
  if (issues.some((issue) => issue.code === 'too_big' && issue.path.at(-1) === 'elements'))
    return 'LAYOUT_TOO_LARGE';
  const inDocument = issues.some((issue) =>
    ['layoutDocument', 'layout_document'].includes(String(issue.path[0])),
  );
  return inDocument ? 'LAYOUT_INVALID' : 'VALIDATION_FAILED';
}

const LayoutRecord = z.object({
  id: UuidOut,
  version: z.int(),
  status: z.enum(['draft', 'active', 'archived']),
  validation_status: z.enum(['valid', 'invalid', 'pending']),
  validation_errors: z.array(
    z.object({ code: z.string(), message: z.string(), element: z.int().optional() }),
  ),
  seat_count: z.int(),
  layoutDocument: LayoutDocumentSchema,
  created_at: DateTime,
  activated_at: DateTime.nullable(),
});

const Bus = z
  .object({
    id: UuidOut,
    plate_number: z.string(),
    model: z.string(),
    amenities: z.array(z.string()),
    capacity: z.int().meta({ description: 'seats of the active layout (0 without one)' }),
    status: z.enum(['ACTIVE', 'MAINTENANCE', 'RETIRED']),
    legacy_seat_map: z.boolean().meta({
      description:
        'imported before canonical layouts; the first trip planned on it gives it a generated layout of its capacity',
    }),
    layout: z.object({ id: UuidOut, version: z.int(), seat_count: z.int() }).nullable(),
    created_at: DateTime,
  })
  .meta({ id: 'Bus' });

export const BusLayouts = z.object({
  bus: Bus,
  active: LayoutRecord.nullable().meta({ description: 'the layout customers book on' }),
  draft: LayoutRecord.nullable().meta({ description: 'the newest draft saved after the active layout' }),
});

/** A plate number as typed and as stored: a letter or digit, then letters, digits, spaces and dashes. */
const PLATE = /^[\p{L}\p{N}][\p{L}\p{N} -]*$/u;
const PLATE_RULE = 'letters, digits, spaces and dashes';

export const BusBody = z
  .object({
    plate_number: Text(2, 20)
      // Letters, digits, spaces and dashes only, so no control or bidirectional-override character
      // reaches a ticket. One plate is one bus whatever the case, the digits (١٢٣ or 123) and the
      // tatweel it is typed with: stored in upper case, in ASCII digits, without tatweel (plateForm).
      .regex(PLATE, PLATE_RULE)
      .toUpperCase()
      .overwrite(plateForm)
      // Checked again as stored: a capital can be longer (ß → SS) or carry a combining mark (ǰ → J̌),
      // and a plate without its tatweel shorter, which would store a plate breaking the rule it was
      // checked against as typed.
      .min(2, 'at least 2 characters as stored')
      .max(20, 'at most 20 characters as stored')
      .regex(PLATE, `${PLATE_RULE} as stored`)
      .meta({
        description:
          '2 to 20 letters, digits, spaces and dashes, stored in upper case, with Arabic-Indic digits (٠-٩, ۰-۹) ' +
          'as 0-9, without tatweel and with one space between words, which must keep to the same rule (ß becomes ' +
          'SS and counts twice; a letter whose capital takes a combining mark is refused)',
      }),
    // Travellers read it (a trip's bus.model): no control or bidirectional-override characters.
    model: PrintedText(0, 80).default(''),
    amenities: z
      .array(z.enum(BUS_AMENITIES))
      .max(BUS_AMENITIES.length)
      .refine((list) => new Set(list).size === list.length, 'must not name an amenity twice')
      .meta({ uniqueItems: true })
      .default([]),
    template_id: z
      .string()
      .optional()
      .meta({ description: 'a template of GET /bus-templates: its layout becomes active' }),
  })
  .strict();

export const DriverBody = z
  .object({
    email: Email(200),
    // Printed on manifests and dispatch views: one line with a letter, nothing that makes it read as another name.
    name: LetteredName(2, 100).meta({ description: `${textRule(2, 100, 'line')}; ${NAME_LETTER_RULE}` }),
    password: z.string().min(10).max(128).meta({ description: 'initial password, 10 to 128 characters' }),
  })
  .strict();

const Driver = z.object({
  id: UuidOut.meta({ description: 'the staff user id; trips name it as driver_id' }),
  membership_id: UuidOut,
  name: z.string(),
  email: z.string(),
  active: z.boolean(),
  created_at: DateTime,
});

const Template = z.object({
  id: z.string(),
  name_en: z.string(),
  name_ar: z.string(),
  description: z.string(),
  seat_count: z.int(),
  decks: z.int(),
  layoutDocument: LayoutDocumentSchema,
});

export const BusesQuery = z.object(Pagination).strict();

const LAYOUT_RULES =
  'PUT takes the document as layoutDocument or layout_document (exactly one; 400 LAYOUT_DOCUMENT_REQUIRED) and ' +
  `saveMode draft or active. A document is checked whole: at most ${MAX_LAYOUT_ELEMENTS} elements (400 LAYOUT_TOO_LARGE; ` +
  'a body over 64 KB is 413 PAYLOAD_TOO_LARGE), known element kinds, and then every element: its deck exists ' +
  '(DECK_NOT_FOUND), it lies on the grid (ELEMENT_OUT_OF_GRID), it overlaps no other (ELEMENTS_OVERLAP), seats have a ' +
  'seatId and a seatNumber used by no other seat (SEAT_ID_DUPLICATE, SEAT_NUMBER_DUPLICATE), at least one seat. A ' +
  'seatNumber is stored without surrounding spaces (the label traveller routes take) and may hold no control or ' +
  "bidirectional-override character; an element's notes are stored trimmed and may hold line breaks and tabs but " +
  'no other control or bidirectional-override character. Any ' +
  'problem is 400 LAYOUT_INVALID with details.issues, each naming the offending element by its path ' +
  '(body.layoutDocument.elements.<index>) and its code; nothing is saved, draft or active. A draft is stored as the next ' +
  'version and changes nothing else. An active save archives the previous active layout and, in the same transaction, ' +
  "rebuilds the seat projection, sets the bus capacity and the seat count of the bus's trips still to run. seatId is the " +
  "seat's identity: renaming a seatNumber keeps held and sold seats where they are; an active layout that drops a seat " +
  'held or sold on a coming or DEPARTED trip is 409 LAYOUT_SEATS_IN_USE. A ticket keeps the seatNumber it was ' +
  'sold with, so an active layout that gives a seatNumber travellers hold on such a trip (printed on a live ticket, ' +
  'or the label of a held or sold seat) to another seat is 409 LAYOUT_SEAT_NUMBERS_IN_USE (details.seatNumbers); a ' +
  'held or sold seat may still take a fresh label. Only the active (hence valid) layout serves customer ' +
  "booking; travellers' seat maps never show management notes.";

export const docs = taggedOperations(TAGS, {
  listBusTemplates: {
    summary: 'Seat layout templates a company starts a bus from',
    description:
      'Standard 2+2, VIP 2+1, two decks and lettered rows: the same templates the demo fleet uses. Each carries its ' +
      'full layout document, ready to PUT as a layout or to name as template_id when creating a bus. Any role may read them.',
    responses: answers(200, 'The templates', ok(z.array(Template)), [401]),
  },
  listBuses: {
    summary: "The company's buses",
    description:
      'Every bus of the session company with its active layout, ordered by plate. Any role may read them.',
    responses: answers(200, 'A page of buses', page(Bus), [400, 401]),
  },
  createBus: {
    summary: 'Add a bus to the fleet',
    description:
      `${WRITE_RULES} plate_number is stored in upper case, in ASCII digits and without tatweel, and is unique ` +
      'in the company whatever the case, the digits (Arabic-Indic ١٢٣ or 123) and the tatweel it is typed with ' +
      '(409 BUS_PLATE_TAKEN); amenities come from a fixed list. ' +
      'With template_id (400 TEMPLATE_NOT_FOUND when unknown) the template becomes its active layout at once; without ' +
      'one the bus takes no trips until a layout is saved active.',
    responses: answers(201, 'The bus', ok(BusLayouts), [400, 401, 403, 409]),
  },
  getBusLayout: {
    summary: "A bus's layouts, management view",
    description:
      "The bus's active layout and its newest draft, whole (management notes included). Another company's bus is 404 " +
      `BUS_NOT_FOUND. Any role may read it. ${LAYOUT_RULES}`,
    responses: answers(200, 'The layouts', ok(BusLayouts), [400, 401, 404]),
  },
  putBusLayout: {
    summary: "Save a bus's layout as a draft or make it active",
    description: `${WRITE_RULES} ${LAYOUT_RULES}`,
    responses: answers(200, 'The layouts after saving', ok(BusLayouts), [400, 401, 403, 404, 409, 413]),
  },
  deleteBusLayout: {
    summary: "Archive a bus's layout",
    description:
      `${WRITE_RULES} Archives the active layout and its drafts; with the active one archived the bus sells no seat ` +
      'and takes no trip until a new layout is saved active (capacity 0); drafts alone leave both as they were. ' +
      'Refused with 409 BUS_HAS_BOOKED_TRIPS (details.tripIds) while the bus ' +
      'serves trips still to run that have bookings (a held or sold seat, or a booking that still travels); 404 ' +
      'LAYOUT_NOT_FOUND when there is nothing to archive.',
    responses: {
      200: { description: 'Archived', schema: ok(z.object({ archivedVersions: z.array(z.int()) })) },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  },
  listDrivers: {
    summary: "The company's drivers",
    description:
      'Staff users with a DRIVER membership of the session company, active ones first. A trip or schedule names a ' +
      'driver by this id (driver_id) and must name an active one. Any role may read them.',
    responses: answers(200, 'A page of drivers', page(Driver), [400, 401]),
  },
  createDriver: {
    summary: 'Create a driver account',
    description:
      'OWNER or ADMIN of an active company (403 ROLE_NOT_ALLOWED, COMPANY_SUSPENDED), with X-CSRF-Token, judged as ' +
      'they stand when the account is made (signed out or deactivated meanwhile 401 INVALID_CREDENTIAL, no longer ' +
      'OWNER or ADMIN 403 ROLE_NOT_ALLOWED). Creates a ' +
      'company user with the e-mail, name and initial password (stored as an argon2id hash, as every staff password) ' +
      'and an active DRIVER membership, so the driver signs in to the driver app at once. An e-mail that any company ' +
      'account already uses is 409 EMAIL_TAKEN.',
    responses: answers(201, 'The driver', ok(Driver), [400, 401, 403, 409]),
  },
});
