import { Refusal } from './refusal.js';

/** A company user acting through their dashboard session, with the roles the route lets in. */
export interface ActingMember {
  sessionId: string;
  membershipId: string;
  staffUserId: string;
  allowedRoles: readonly string[];
}

/** A company API key acting on the company's webhook set-up. */
export interface ActingKey {
  keyId: string;
}

/**
 * Who acts in a company write, checked again in the write's transaction
 * (db/writes/acting-member.ts). Plain ids and role names: a workflow step carries it in its input
 * (a session's id, never its token).
 */
export type CompanyActor = ActingMember | ActingKey;

/**
 * The refusals of a company's actor: a company user whose session or membership no longer holds,
 * or whose role the operation does not allow, and a company API key that is unknown or revoked.
 * The request guards answer them (api/auth/staff-auth.ts, api/dashboard/guards.ts,
 * api/auth/company-api-key.ts) and so does a write that checks its actor again in its transaction
 * (db/writes/acting-member.ts), in the same words.
 */

/**
 * The session (the dashboard's or the driver app's) is revoked, expired or idle, or its membership
 * or account no longer active.
 */
export const staffSessionEnded = (): Refusal =>
  new Refusal(401, 'INVALID_CREDENTIAL', 'The session is invalid or has expired; sign in again');

/** The member's role is not one of `allowedRoles`. */
export const roleNotAllowed = (role: string, allowedRoles: readonly string[]): Refusal =>
  new Refusal(403, 'ROLE_NOT_ALLOWED', `This action needs one of the roles ${allowedRoles.join(', ')}`, {
    role,
    allowedRoles: [...allowedRoles],
  });

/** The company API key is not `Bearer <key>`, unknown or revoked. */
export const apiKeyInvalid = (): Refusal =>
  new Refusal(401, 'INVALID_CREDENTIAL', 'The API key is invalid or revoked');
