import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';
import type { Database } from './orm.js';

const names = new Map<string, string>();

/**
 * A parameterized query as a named prepared statement: each pooled connection parses and plans it
 * once, and after a few executions reuses a generic plan. For the hot statements of a request
 * (booking creation runs about ten), planning a join costs ten times executing it: a prepared
 * statement took the bare booking transaction from about 360 to about 510 bookings/s on two
 * cores. The name is derived from the text, so two texts never share a name and the same text
 * built in two places shares one statement. Only for texts from a small fixed set (each distinct
 * text stays prepared on every connection).
 *
 * Inside db.transaction every parameterized text is already sent this way (db/orm.ts); call it
 * for the hot reads that go to the pool directly.
 */
export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (!name) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

/**
 * `db` with every parameterized `query` sent as a named prepared statement too (its transactions
 * already are): for the journey routes, whose reads outside a transaction are a small fixed set of
 * texts and whose projection join cost more to plan than to run.
 */
export function withPreparedReads(db: Database): Database {
  return {
    ...db,
    query: async <Row>(text: string, params: unknown[] = []) =>
      (await db.pool.query(params.length > 0 ? prepared(text, params) : text)).rows as Row[],
  };
}
