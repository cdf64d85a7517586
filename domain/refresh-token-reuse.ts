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

/** What is known of an unused refresh token when it is presented for the first time. */
export interface UnusedRefreshToken {
  /**
   * Another replacement of the token it replaced (a sibling: the same refresh arriving twice got
   * one each) has been presented since.
   */
  siblingUsed: boolean;
}

/**
 * A duplicate refresh leaves siblings: one replacement per copy of the request. The client goes on
 * with one of them (an app whose first answer was lost never saw the other; tabs share one cookie
 * jar), so once one is used the others have no owner, as a used token does once its replacement is
 * used: presenting one then is reuse too, and ends the session. Otherwise two holders would each
 * keep a chain of the session that never meets the other's, and reuse detection would never see it.
 */
export function isOrphanedReplacement(token: UnusedRefreshToken): boolean {
  return token.siblingUsed;
}
