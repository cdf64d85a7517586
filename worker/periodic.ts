import type { Logger } from '../config/logger.js';

export interface PeriodicCheck {
  everyMs: number;
  /** False once the worker is shutting down: the checks stop. */
  running: () => boolean;
  check: () => Promise<unknown>;
  logger: Logger;
  /** Logged (debug) with the error when a check fails; the next turn checks again. */
  skipped: string;
}

/**
 * Runs `check` every `everyMs` until `running()` turns false; a turn that finds the previous check
 * still under way is skipped. The timer does not keep the process alive. Answers its stop.
 */
export function startPeriodicCheck(periodic: PeriodicCheck): () => void {
  let checking = false;
  const timer = setInterval(() => {
    if (!periodic.running()) {
      clearInterval(timer);
      return;
    }
    if (checking) return;
    checking = true;
    periodic
      .check()
      .catch((error: unknown) => periodic.logger.debug({ err: error }, periodic.skipped))
      .finally(() => {
        checking = false;
      });
  }, periodic.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
