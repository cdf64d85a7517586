/**
 * A business rule said no: a stable errorCode (`code`), the HTTP status it stands for and safe
 * text. Domain and database code throw it, or a subclass naming its area (JourneyRefusal,
 * LoyaltyRefusal, ...); the API's error writer turns every one into the error envelope, so no
 * route translates refusals itself. Anything else thrown stays a 500.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
