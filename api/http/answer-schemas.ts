import { z } from 'zod';

/**
 * The OpenAPI schema of the answer respond.ts's `ok(ctx, data)` and `created(ctx, data)` write:
 * `{ success: true, data }`. Answers with more fields beside data (a message, a pagination) spell
 * their envelope out.
 */
export function successWith<Data extends z.ZodType>(data: Data) {
  return z.object({ success: z.literal(true), data });
}

/** A uuid as an answer shows it: plain text (input is checked with schemas.ts `Uuid`). */
export const IdText = z.string().meta({ format: 'uuid' });

/** An instant as an answer shows it: ISO 8601 text. */
export const DateTimeText = z.string().meta({ format: 'date-time' });

/** The delay a trip's company announced (MARK_DELAYED), as the traveller's reads of the trip show it. */
export const DelayMinutesText = z.int().meta({
  description: 'the delay the company announced (MARK_DELAYED), in minutes; 0 when none',
});

/** The `pagination` of a list answer: the query's limit and offset and the list's total. */
export const PaginationText = z.object({ limit: z.int(), offset: z.int(), total: z.int() });

/**
 * The OpenAPI schema of the answer respond.ts's `page(ctx, items, window, total)` writes:
 * `{ success: true, data: [item...], pagination }`.
 */
export function pageWith<Item extends z.ZodType>(item: Item) {
  return z.object({ success: z.literal(true), data: z.array(item), pagination: PaginationText });
}
