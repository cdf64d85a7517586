import type { Context } from 'koa';

/**
 * The JSON envelope of SPEC.md's answers, written once: `{ success: true, data }`, and for lists
 * `{ success: true, data, pagination: { limit, offset, total } }`. Refusals take the other form
 * (`{ success: false, errorCode, ... }`), written by the error middleware from a thrown Refusal.
 */

/** 200 with the data (or `{ success: true }` alone when there is none). */
export function ok(ctx: Context, data?: unknown): void {
  ctx.body = data === undefined ? { success: true } : { success: true, data };
}

/** 201: something new was made; the data describes it. */
export function created(ctx: Context, data: unknown): void {
  ctx.status = 201;
  ctx.body = { success: true, data };
}

/**
 * A create that may repeat (an idempotency key, an upsert): 201 when this call made the record,
 * 200 when it was already there; the data describes it either way.
 */
export function createdOrOk(ctx: Context, madeNow: boolean, data: unknown): void {
  if (madeNow) created(ctx, data);
  else ok(ctx, data);
}

/** The page of a list that `window` (the query's limit and offset) asked for, and the list's total. */
export function page(
  ctx: Context,
  data: unknown[],
  window: { limit: number; offset: number },
  total: number,
): void {
  ctx.body = { success: true, data, pagination: { limit: window.limit, offset: window.offset, total } };
}

/**
 * The page of a list as the administration (and the traveller's support tickets) answer it: the
 * items, the list's total and the query's limit and offset, all inside `data`.
 */
export function itemsPage(
  ctx: Context,
  items: unknown[],
  window: { limit: number; offset: number },
  total: number,
): void {
  ctx.body = { success: true, data: { items, total, limit: window.limit, offset: window.offset } };
}
