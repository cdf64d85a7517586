import { z } from 'zod';

/**
 * The OpenAPI schema of the answer respond.ts's `ok(ctx, data)` and `created(ctx, data)` write:
 * `{ success: true, data }`. Answers with more fields beside data (a message, a pagination) spell
 * their envelope out.
 */
export function successWith<Data extends z.ZodType>(data: Data) {
  return z.object({ success: z.literal(true), data });
}
