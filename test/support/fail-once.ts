import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/orm.js';

/** A write to make fail: the table, the statement, and which rows (SQL over NEW, and OLD for an update). */
export interface InjectedFailure {
  table: string;
  event: 'insert' | 'update';
  /** Keep it narrow (one test's phone or e-mail): the trigger sees every test's writes. */
  condition: string;
}

/**
 * Makes the next write of `failure.table` whose row matches `failure.condition` fail, once, with a
 * temporary trigger (the server gets an error from PostgreSQL, as on a lost connection or a full
 * disk). A sequence counts the matching tries: its nextval is not rolled back with the failing
 * statement, where a flag in a table would be. Answers the clean-up, which drops it all.
 */
export async function failOnce(db: Database, failure: InjectedFailure): Promise<() => Promise<void>> {
  const name = `test_fail_once_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await db.pool.query(`create sequence ${name}_tries`);
  await db.pool.query(`
    create function ${name}() returns trigger language plpgsql as $$
    begin
      if ${failure.condition} then
        if nextval('${name}_tries') = 1 then
          raise exception 'injected failure (${name})';
        end if;
      end if;
      return new;
    end $$`);
  await db.pool.query(
    `create trigger ${name} before ${failure.event} on ${failure.table} for each row execute function ${name}()`,
  );
  return async () => {
    await db.pool.query(`drop trigger if exists ${name} on ${failure.table}`);
    await db.pool.query(`drop function if exists ${name}()`);
    await db.pool.query(`drop sequence if exists ${name}_tries`);
  };
}
