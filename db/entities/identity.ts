import { p } from '@mikro-orm/core';
import {
  accountStatus,
  baseEntity,
  consumedOnce,
  contactDetails,
  entity,
  oneUseToken,
  stampedNow,
  updatedAt,
} from './base.js';

/** Travellers: how someone signs in (users) and the canonical traveller profile (passengers). */
export { AccountStatus } from './base.js';

export const Passenger = baseEntity('Passenger', 'passengers', {
  ...contactDetails(),
  name: p.text().default(''),
  gender: p.text().default(''),
  nationalId: p.text().default(''),
  /** The profile this one was merged into; bookings follow the canonical one. */
  mergedIntoId: p.uuid().nullable(),
  updatedAt: updatedAt(),
});

export const User = baseEntity('User', 'users', {
  ...contactDetails(),
  emailVerifiedAt: p.datetime().nullable(),
  name: p.text().default(''),
  passwordHash: p.text().nullable(),
  passengerId: p.uuid().nullable(),
  /** Server-set only (inventory_scope, demo_company_id); never written from a request. */
  appMetadata: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
  status: accountStatus(),
  updatedAt: updatedAt(),
});

export const UserIdentity = baseEntity('UserIdentity', 'user_identities', {
  userId: p.uuid(),
  provider: p.enum(['idp'] as const),
  subject: p.text(),
  email: p.text().nullable(),
});

/**
 * A subject the account unlinked: sign-in no longer adds it to the account by its address; the
 * traveller linking it again, signed in, removes the row.
 */
export const UnlinkedIdentity = entity('UnlinkedIdentity', 'unlinked_identities', {
  userId: p.uuid().primary(),
  provider: p.enum(['idp'] as const).primary(),
  subject: p.text().primary(),
  unlinkedAt: stampedNow(),
});

export const TravellerSession = baseEntity('TravellerSession', 'traveller_sessions', {
  userId: p.uuid(),
  channel: p.enum(['web', 'mobile', 'pwa'] as const).default('web'),
  lastRefreshedAt: p.datetime().nullable(),
  expiresAt: p.datetime(),
  revokedAt: p.datetime().nullable(),
  revokedReason: p.text().nullable(),
});

/** One link of a session's rotating refresh-token family; only the hash is stored. */
export const RefreshToken = baseEntity('RefreshToken', 'refresh_tokens', {
  sessionId: p.uuid(),
  parentId: p.uuid().nullable(),
  ...oneUseToken(),
});

export const OtpChallenge = baseEntity('OtpChallenge', 'otp_challenges', {
  phone: p.text(),
  channel: p.text(),
  codeHash: p.text().nullable(),
  providerReference: p.text().nullable(),
  attempts: p.integer().default(0),
  maxAttempts: p.integer().default(5),
  ...consumedOnce(),
});

/** A phone number proven to the chat bot by its owner, and the chat codes go to. */
export const ChatappLink = entity('ChatappLink', 'chatapp_links', {
  phone: p.text().primary(),
  chatId: p.text(),
  linkedAt: stampedNow(),
});

export const EmailToken = baseEntity('EmailToken', 'email_tokens', {
  userId: p.uuid(),
  purpose: p.enum(['VERIFY_EMAIL', 'RESET_PASSWORD'] as const),
  email: p.text(),
  ...oneUseToken(),
});

/** The nonce of one identity-provider sign-in flow, consumed once. */
export const IdpNonce = entity('IdpNonce', 'idp_nonces', {
  flowId: p.uuid().primary(),
  nonceHash: p.text(),
  channel: p.enum(['web', 'pwa', 'link'] as const),
  createdAt: stampedNow(),
  ...consumedOnce(),
});

export const Favorite = baseEntity('Favorite', 'favorites', {
  passengerId: p.uuid(),
  originCityId: p.uuid(),
  destCityId: p.uuid(),
});
