import type { PoolClient } from 'pg';
import type { Mailer } from '../../providers/mailer.js';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { findUserSummary } from '../../db/queries/customer-user.js';
import {
  findRecoverableUser,
  inspectEmailToken,
  type EmailTokenState,
} from '../../db/queries/email-tokens.js';
import {
  deleteEmailToken,
  expireOlderEmailTokens,
  insertEmailToken,
  resetPasswordWithLink,
  verifyWithLink,
} from '../../db/writes/email-tokens.js';
import type { Database } from '../../db/orm.js';
import {
  recoveryEmail,
  recoveryLink,
  verificationEmail,
  verificationLink,
  type ComposedEmail,
  type EmailTokenPurpose,
} from '../../domain/account-email.js';
import { Refusal } from '../http/errors.js';
import { hashPassword } from './passwords.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * Traveller e-mail verification and password recovery.
 *
 * Links carry a random 32-byte secret; only its SHA-256 is stored (email_tokens). A link works
 * once (used_at), for EMAIL_VERIFICATION_TTL_SECONDS (24 h) or PASSWORD_RECOVERY_TTL_SECONDS
 * (30 min), and only while the account is active and still has the address it was sent to.
 * Sending a new link of one kind expires the older unused ones once the new message is accepted
 * by the SMTP server; a message that fails leaves the earlier links working.
 */
export interface EmailDeps {
  config: Config;
  db: Database;
  logger: Logger;
  mailer: Mailer;
}

/**
 * Sends a verification link to `email` for the user (resend-verification, and sign-up flows that
 * collect an address). The message names the account that asked (the site and the last digits of
 * its phone). Throws MailDeliveryError when the SMTP server does not take the message.
 */
export async function sendVerificationEmail(deps: EmailDeps, userId: string, email: string): Promise<void> {
  const ttl = deps.config.EMAIL_VERIFICATION_TTL_SECONDS;
  const account = await findUserSummary(deps.db.pool, userId);
  const requester = { site: new URL(deps.config.PUBLIC_ORIGIN).host, phone: account?.phone ?? null };
  await issueEmailLink(deps, { userId, email, purpose: 'VERIFY_EMAIL', ttlSeconds: ttl }, (token) =>
    verificationEmail(verificationLink(deps.config.PUBLIC_ORIGIN, token), ttl, requester),
  );
}

/**
 * Sends a recovery link when the address is the verified e-mail of an active traveller; does
 * nothing otherwise. Callers answer the same way in both cases.
 */
export async function requestPasswordRecovery(deps: EmailDeps, email: string): Promise<void> {
  const user = await findRecoverableUser(deps.db, email);
  if (!user) return;
  const ttl = deps.config.PASSWORD_RECOVERY_TTL_SECONDS;
  await issueEmailLink(
    deps,
    { userId: user.id, email: user.email, purpose: 'RESET_PASSWORD', ttlSeconds: ttl },
    (token) => recoveryEmail(recoveryLink(deps.config.PUBLIC_ORIGIN, token), ttl),
  );
}

async function issueEmailLink(
  deps: EmailDeps,
  link: { userId: string; email: string; purpose: EmailTokenPurpose; ttlSeconds: number },
  compose: (token: string) => ComposedEmail,
): Promise<void> {
  const token = newSecret();
  const id = await insertEmailToken(deps.db, { ...link, tokenHash: hashSecret(token) });
  try {
    await deps.mailer.send({ to: link.email, ...compose(token) });
  } catch (error) {
    await deleteEmailToken(deps.db, id).catch((cleanup: unknown) =>
      deps.logger.error({ err: cleanup }, 'unsent e-mail link not removed'),
    );
    throw error;
  }
  await expireOlderEmailTokens(deps.db, id);
}

/** The answer for a link that cannot be used: unknown, already used, or expired/replaced. */
function linkRefusal(state: Exclude<EmailTokenState, { kind: 'valid' }>): Refusal {
  switch (state.kind) {
    case 'used':
      return new Refusal(410, 'EMAIL_TOKEN_USED', 'This link was already used');
    case 'expired':
      return new Refusal(
        410,
        'EMAIL_TOKEN_EXPIRED',
        'This link has expired or a newer link replaced it; ask for a new one',
      );
    default:
      return new Refusal(400, 'EMAIL_TOKEN_INVALID', 'This link is not valid');
  }
}

/** Checks a link without using it up. */
export async function checkEmailLink(
  deps: Pick<EmailDeps, 'db'>,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<{ email: string; /** Unix epoch seconds. */ expiresAt: number }> {
  const state = await inspectEmailToken(deps.db, hashSecret(token), purpose);
  if (state.kind !== 'valid') throw linkRefusal(state);
  return { email: state.email, expiresAt: state.expiresAt };
}

/** Uses a verification link: the user's current address becomes verified. */
export async function verifyEmailAddress(
  deps: Pick<EmailDeps, 'db'>,
  token: string,
): Promise<{ userId: string; email: string }> {
  const state = await verifyWithLink(deps.db, hashSecret(token));
  if (state.kind !== 'valid') throw linkRefusal(state);
  return { userId: state.userId, email: state.email };
}

/**
 * Uses a recovery link: sets the new password (argon2id), revokes every session of the user
 * (reason PASSWORD_RESET), expires the user's other recovery links, and marks the address
 * verified (the link proved the traveller reads that mailbox); then `start` starts the new session
 * in the same transaction, so a failure or refusal there leaves the link usable and the password
 * unchanged. Returns the user id and what `start` answered.
 */
export async function resetPassword<Started>(
  deps: Pick<EmailDeps, 'db'>,
  token: string,
  password: string,
  start: (client: PoolClient, userId: string) => Promise<Started>,
): Promise<{ userId: string; started: Started }> {
  const tokenHash = hashSecret(token);
  // Checked first so a bad link never costs a password hash.
  const before = await inspectEmailToken(deps.db, tokenHash, 'RESET_PASSWORD');
  if (before.kind !== 'valid') throw linkRefusal(before);
  const passwordHash = await hashPassword(password);
  const state = await resetPasswordWithLink(deps.db, tokenHash, passwordHash, start);
  if (state.kind !== 'valid') throw linkRefusal(state);
  return { userId: state.userId, started: state.outcome };
}
