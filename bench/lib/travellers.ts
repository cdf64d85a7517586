import { issueTravellerSession } from '../../api/auth/traveller-session.js';
import { createTravellerTokens } from '../../api/auth/traveller-token.js';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { PUBLIC_SCOPE, scopeToAppMetadata } from '../../domain/inventory-scope.js';

export interface BenchTraveller {
  userId: string;
  /** A mobile (bearer) access token of a live session. */
  token: string;
}

/**
 * Signed-in production travellers for a benchmark: a passenger, a user and a session each.
 * `phonePrefix` keeps the numbers of two benchmarks apart (+963998 plus one digit).
 */
export async function createTravellers(
  db: Database,
  config: Config,
  count: number,
  phonePrefix: string,
): Promise<BenchTraveller[]> {
  const tokens = createTravellerTokens(config);
  const travellers: BenchTraveller[] = [];
  for (let index = 0; index < count; index++) {
    const phone = `${phonePrefix}${String(index).padStart(5, '0')}`;
    const [passenger] = await db.query<{ id: string }>(
      `insert into passengers (phone, name) values ($1, 'Bench Traveller') returning id`,
      [phone],
    );
    const [user] = await db.query<{ id: string }>(
      `insert into users (phone, name, passenger_id, app_metadata) values ($1, 'Bench Traveller', $2, $3) returning id`,
      [phone, passenger!.id, JSON.stringify(scopeToAppMetadata(PUBLIC_SCOPE))],
    );
    const session = await issueTravellerSession({ config, db, tokens }, user!.id, 'mobile');
    travellers.push({ userId: user!.id, token: session.token });
  }
  return travellers;
}

/** Each traveller in turn, round and round: the same traveller's requests are far apart. */
export function inTurn(travellers: BenchTraveller[]): () => BenchTraveller {
  let next = 0;
  return () => travellers[next++ % travellers.length]!;
}
