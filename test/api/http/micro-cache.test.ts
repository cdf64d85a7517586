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

  it('says whether it keeps answers: a lifetime of 0 turns it off', () => {
    expect(new MicroCache<string>(0).enabled).toBe(false);
    expect(new MicroCache<string>(1_000).enabled).toBe(true);
  });
});
