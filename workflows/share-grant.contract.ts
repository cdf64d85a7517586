import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AcceptResult, OpenResult, RevokeResult, ShareActor } from '../domain/document-sharing.js';

export {
  SHARE_DOCUMENT_KINDS,
  SHARE_PRESENTATIONS,
  SHARE_REFUSAL_STATUS,
  type AcceptResult,
  type IssuerKind,
  type OpenResult,
  type RevokeResult,
  type ShareActor,
  type ShareDocumentKind,
  type ShareGrantInput,
  type SharePresentation,
  type ShareRefusalCode,
} from '../domain/document-sharing.js';

/**
 * The contract of the `shareGrant` workflow (id share-grant/{grantId}): one shared document's
 * life, created → accepted → revoked or expired. The API imports this module, never the workflow
 * body. The link secret never enters Temporal: only its SHA-256 travels, as in the database.
 */
export const SHARE_GRANT_WORKFLOW = 'shareGrant';

export interface AcceptRequest {
  secretHash: string;
  /** SHA-256 (hex) of the recipient session token the API hands out as a cookie. */
  sessionTokenHash: string;
  /**
   * The API's deadline (epoch ms) for the accept to commit (db/writes/deadline.ts refuseWhenLate):
   * past it the request has stopped waiting, and the accept writes nothing (SHARE_ACCEPT_LATE).
   * Absent from accepts sent before it was carried: no deadline.
   */
  acceptBy?: number;
}

export interface RevokeRequest {
  by: ShareActor;
}

export type GrantPhase = 'NEW' | 'CREATED' | 'ACCEPTED' | 'REVOKED' | 'EXPIRED';

export interface GrantState {
  phase: GrantPhase;
  linkExpiresAt: string | null;
  sessionExpiresAt: string | null;
}

/** Creates the grant's row; sent with the workflow's start (update-with-start). */
export const openUpdate = defineUpdate<OpenResult, []>('open');
export const acceptUpdate = defineUpdate<AcceptResult, [AcceptRequest]>('accept');
export const revokeUpdate = defineUpdate<RevokeResult, [RevokeRequest]>('revoke');
/** The API ended the recipient session for idleness; the grant can expire now instead of at the hard end. */
export const sessionIdleSignal = defineSignal<[]>('sessionIdle');
export const grantStateQuery = defineQuery<GrantState>('state');
