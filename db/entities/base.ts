import { randomUUID } from 'node:crypto';
import { p, raw } from '@mikro-orm/core';

/** A timestamp the database sets to now() (the transaction's start) when the insert leaves it out. */
export const stampedNow = () => p.datetime().defaultRaw('now()');

/**
 * Shared columns: a uuid primary key made in the application (the entity has its identity before
 * the insert), and the creation time the database sets, as the hand-written inserts get it.
 */
export const baseProperties = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => randomUUID()),
  createdAt: stampedNow(),
};

/** updated_at: now() on insert and on every update an entity makes, as the hand-written writes set it. */
export const updatedAt = () => stampedNow().onUpdate(() => raw<Date>('now()'));

/**
 * A server-side session of the dashboard or the administration: only hashes of the session token
 * and of its CSRF token are stored; it ends by expiry or revocation.
 */
export const serverSessionProperties = () => ({
  ...baseProperties,
  tokenHash: p.text().unique(),
  csrfTokenHash: p.text(),
  lastSeenAt: stampedNow(),
  expiresAt: p.datetime(),
  revokedAt: p.datetime().nullable(),
});
