import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MicroCache } from '../../../api/http/micro-cache.js';

/** A loader that counts its calls and answers "<name>#<call number>". */
function counter(name: string) {
  let calls = 0;
  return {
    load: async () => `${name}#${++calls}`,
    get calls() {
      return calls;
    },
  };
}

describe('MicroCache', () => {
  it('answers from memory while fresh, without loading again', async () => {
    const cache = new MicroCache<string>(1_000);
    const loader = counter('a');
    expect(await cache.get('k', loader.load)).toBe('a#1');
    expect(await cache.get('k', loader.load)).toBe('a#1');
    expect(loader.calls).toBe(1);
  });

  it('serves a stale answer once past its lifetime while one background load replaces it', async () => {
    const cache = new MicroCache<string>(40);
    const loader = counter('b');
    await cache.get('k', loader.load);
    await sleep(50);
    // Two callers at once past the lifetime: both get the stale answer at once, and only one load runs.
    expect(await Promise.all([cache.get('k', loader.load), cache.get('k', loader.load)])).toEqual([
      'b#1',
      'b#1',
    ]);
    await sleep(5);
    expect(await cache.get('k', loader.load)).toBe('b#2');
    expect(loader.calls).toBe(2);
  });

  it('waits for a new answer once the stale one is twice its lifetime old', async () => {
    const cache = new MicroCache<string>(20);
    const loader = counter('c');
    await cache.get('k', loader.load);
    await sleep(50);
    expect(await cache.get('k', loader.load)).toBe('c#2');
  });

  it('shares one load among identical concurrent misses, and never caches a failure', async () => {
    const cache = new MicroCache<string>(1_000);
    const loader = counter('d');
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get('k', loader.load)));
    expect(new Set(answers)).toEqual(new Set(['d#1']));
    expect(loader.calls).toBe(1);
    await expect(cache.get('e', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('e', async () => 'recovered')).toBe('recovered');
  });

  it('with no lifetime, always loads', async () => {
    const cache = new MicroCache<string>(0);
    const loader = counter('f');
    await cache.get('k', loader.load);
    await cache.get('k', loader.load);
    expect(loader.calls).toBe(2);
  });

  it('holds at most maxBytes of answers, the oldest going first; one larger than the budget is not kept', async () => {
    const cache = new MicroCache<string>(60_000, { maxBytes: 10, sizeOf: (value) => value.length });
    for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, async () => `${key}-val`);
    // Four answers of 5 bytes in a budget of 10: the two oldest made way.
    expect({ size: cache.size, bytes: cache.heldBytes }).toEqual({ size: 2, bytes: 10 });
    const loader = counter('a');
    expect(await cache.get('a', loader.load)).toBe('a#1');
    expect(await cache.get('d', async () => 'reloaded')).toBe('d-val');
    expect(await cache.get('huge', async () => 'x'.repeat(11))).toBe('x'.repeat(11));
    expect(await cache.get('huge', async () => 'again')).toBe('again');
    expect(cache.heldBytes).toBeLessThanOrEqual(10);
  });

  it('drops answers too old even to serve stale when it stores a new one, whatever room is left', async () => {
    const cache = new MicroCache<string>(10, { sizeOf: (value) => value.length });
    for (let index = 0; index < 50; index += 1) await cache.get(`old-${index}`, async () => 'stale');
    await sleep(30);
    await cache.get('new', async () => 'fresh');
    expect({ size: cache.size, bytes: cache.heldBytes }).toEqual({ size: 1, bytes: 5 });
  });

  it('keeps at most maxEntries answers', async () => {
    const cache = new MicroCache<string>(60_000, { maxEntries: 3 });
    for (let index = 0; index < 10; index += 1) await cache.get(`k${index}`, async () => 'v');
    expect(cache.size).toBe(3);
  });

  it('says whether it keeps answers: a lifetime of 0 turns it off', () => {
    expect(new MicroCache<string>(0).enabled).toBe(false);
    expect(new MicroCache<string>(1_000).enabled).toBe(true);
  });
});
