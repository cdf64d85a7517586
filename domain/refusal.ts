/**
 * The one error a client may see: a business rule or an HTTP check said no. It carries a stable
 * errorCode (`code`), the HTTP status it stands for, safe text and optional details. Domain and
 * database code throw it, or a subclass naming its area (JourneyRefusal, LoyaltyRefusal, ...); the
 * API's checks throw it through the helpers in api/http/errors.ts. The error writer at the HTTP
 * edge turns every one into the error envelope, so a refusal changes form exactly once. Anything
 * else thrown stays a 500 whose details go only to the log.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra top-level body fields some SPEC errors carry (for example available_methods). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The envelope's name for `code`. */
  get errorCode(): string {
    return this.code;
  }
}

/** A business refusal as plain data: it crosses the activity boundary as JSON. */
export interface RefusalData {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * An activity's answer: its result, or the business refusal its transaction threw. A refusal is an
 * answer for the Update caller, not a failed activity; the workflow throws it on (workflows/steps.ts
 * `accepted`), and anything else thrown (a lost connection) fails the attempt and is retried.
 */
export type Refusable<T> = { done: T; refused?: never } | { refused: RefusalData; done?: never };
