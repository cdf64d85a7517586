/**
 * Whether a traveller refresh token presented after it was used is the same refresh arriving
 * twice (two browser tabs after the access token expired, an app retrying a refresh whose answer
 * was lost) or a leaked token replayed. Pure rule over facts the rotation in
 * db/writes/traveller-sessions.ts reads under its locks.
 */

/** What is known of a used refresh token when it is presented again. */
export interface UsedRefreshToken {
  /**
   * Seconds from its first use to the start of this request, by the database clock; slightly
   * negative when this request began before that use committed.
   */
  secondsSinceUse: number;
  /** Whether any replacement issued for it has been presented since. */
  replacementUsed: boolean;
}

/**
 * A duplicate in flight gets one more replacement; anything else is theft and ends the session.
 * It is a duplicate only within `graceSeconds` of the first use (0 turns the grace off) and only
 * while no replacement has been used: once the client has moved on, the old token has no owner.
 */
export function isDuplicateRefresh(token: UsedRefreshToken, graceSeconds: number): boolean {
  return graceSeconds > 0 && token.secondsSinceUse < graceSeconds && !token.replacementUsed;
}
