/**
 * A host clock out of step: this process's clock (the in-process API's: Date.now() and `new
 * Date()`) runs `offsetMs` ahead of (positive) or behind (negative) the real one, which the test PostgreSQL and
 * the run's Temporal worker (another process) keep reading. Production files are untouched: only
 * the global Date of this test process is replaced, as a host with a skewed clock would have it.
 */
const RealDate = Date;
let offsetMs = 0;

class SkewedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...(args as [string | number | Date]));
  }
  static override now(): number {
    return RealDate.now() + offsetMs;
  }
}

let installed = false;
/** Sets this process's clock skew (ms); 0 puts it back in step. */
export function skewClock(ms: number): void {
  if (!installed) {
    (globalThis as { Date: DateConstructor }).Date = SkewedDate as unknown as DateConstructor;
    installed = true;
  }
  offsetMs = ms;
}

/** The real (database/worker) clock, whatever the skew. */
export const realNow = () => RealDate.now();
