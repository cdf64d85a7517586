/** One SQL statement and its parameters, as pg takes them; list reads build theirs for the benchmarks to send bare. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** Appends `$n` placeholders to `values` as clauses are added (one per value a clause binds). */
export function clauses(values: unknown[]) {
  const where: string[] = [];
  return {
    where,
    add(clause: (...slots: string[]) => string, ...bound: [unknown, ...unknown[]]) {
      const slots = bound.map((value) => `$${values.push(value)}`);
      where.push(clause(...slots));
    },
  };
}
