/**
 * The drill's only source of chance: a seeded generator (mulberry32), so a seed replays the same
 * choices. Steps that run at once may still interleave differently from run to run; the seed fixes
 * what is tried, not the order PostgreSQL serialises it in.
 */
export interface Dice {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T | undefined;
  /** A name drawn by weight. */
  weighted<Name extends string>(weights: readonly (readonly [Name, number])[]): Name;
}

export function seededDice(seed: number): Dice {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => (items.length ? items[Math.floor(next() * items.length)] : undefined),
    weighted(weights) {
      const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
      let draw = next() * total;
      for (const [name, weight] of weights) {
        draw -= weight;
        if (draw < 0) return name;
      }
      return weights[0]![0];
    },
  };
}
