import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/orm.js';
import { platformState } from '../../api/platform/state.js';

/**
 * The per-process cache of feature flags and maintenance windows, against a database stand-in
 * that counts what it is asked: between two polls a read costs no query; a poll reads the
 * change counters only, and reloads just the state whose counter moved.
 */
function fakeDatabase() {
  const state = {
    versions: { feature_flags: 1, maintenance: 1 },
    flags: [{ key: 'waitlist.signup', enabled: false }],
    windows: [] as { id: string; message: string; starts_at: string; ends_at: string }[],
  };
  const asked: string[] = [];
  const rowsFor = (sql: string) => {
    if (sql.includes('platform_state_versions')) {
      asked.push('versions');
      const versions = Object.fromEntries(
        Object.entries(state.versions).map(([name, version]) => [name, String(version)]),
      );
      return [{ at: String(Date.now()), versions }];
    }
    if (sql.includes('from feature_flags')) {
      asked.push('flags');
      return state.flags.map((flag) => ({
        ...flag,
        updated_by: null,
        updated_by_name: null,
        updated_at: '',
      }));
    }
    if (sql.includes('from maintenance_windows')) {
      asked.push('windows');
      return state.windows;
    }
    throw new Error(`unexpected query ${sql}`);
  };
  // Database.query answers rows; its pool answers them as pg does.
  const db = {
    query: async (sql: string) => rowsFor(sql),
    pool: {
      query: async (sql: string) => ({ rows: rowsFor(sql) }),
      connect: async () => ({
        query: async (sql: string) => ({ rows: rowsFor(sql) }),
        release: () => undefined,
      }),
    },
  } as unknown as Database;
  return { db, state, asked };
}

describe('platform state cache', () => {
  it('answers from memory between polls, and reloads only what changed once the poll interval has passed', async () => {
    const { db, state, asked } = fakeDatabase();
    let now = 1_000_000;
    const cache = platformState(db, { PLATFORM_STATE_POLL_SECONDS: 2 }, () => now);

    expect(await cache.flag('waitlist.signup')).toBe(false);
    expect(await cache.flag('support.traveller_tickets')).toBe(true);
    expect(asked).toEqual(['versions', 'flags', 'windows']);

    state.flags = [{ key: 'waitlist.signup', enabled: true }];
    state.versions.feature_flags = 2;
    now += 1_999;
    expect(await cache.flag('waitlist.signup')).toBe(false);
    expect(asked).toHaveLength(3);

    now += 1;
    expect(await cache.flag('waitlist.signup')).toBe(true);
    expect(asked).toEqual(['versions', 'flags', 'windows', 'versions', 'flags']);

    now += 2_000;
    expect(await cache.maintenance()).toBeNull();
    expect(asked.slice(5)).toEqual(['versions']);
  });

  it('shares one poll among the requests waiting for it, and judges windows by the time of each request', async () => {
    const { db, state, asked } = fakeDatabase();
    let now = Date.parse('2026-11-24T12:00:00Z');
    state.windows = [
      {
        id: 'w',
        message: 'upgrade',
        starts_at: '2026-11-24T12:00:20.000Z',
        ends_at: '2026-11-24T12:00:40.000Z',
      },
    ];
    const cache = platformState(db, { PLATFORM_STATE_POLL_SECONDS: 60 }, () => now);
    const answers = await Promise.all([
      cache.maintenance(),
      cache.maintenance(),
      cache.flag('waitlist.signup'),
    ]);
    expect(answers).toEqual([null, null, false]);
    expect(asked).toEqual(['versions', 'flags', 'windows']);

    now = Date.parse('2026-11-24T12:00:30Z');
    expect((await cache.maintenance())?.id).toBe('w');
    now = Date.parse('2026-11-24T12:00:40Z');
    expect(await cache.maintenance()).toBeNull();
    expect(asked).toHaveLength(3);
  });
});
