import { findUserSummary, type UserSummary } from '../../db/queries/customer-user.js';
import type { RequestOrigin } from '../../db/writes/audit.js';
import { signInByPhone, type PhoneSignIn } from '../../db/writes/phone-sign-in.js';
import {
  signInWithIdentity,
  type IdpSignIn,
  type PresentedNonce,
  type VerifiedIdentity,
} from '../../db/writes/traveller-identity/index.js';
import type { AppContext } from '../app.js';
import { resetPassword, sendVerificationEmail } from '../auth/email.js';
import { checkOtp, type OtpMethod } from '../auth/otp.js';
import {
  issueTravellerSessionWithin,
  type IssuedSession,
  type SessionChannel,
} from '../auth/traveller-session.js';
import { Refusal } from '../http/errors.js';

/**
 * The ways a traveller signs in, each ending in a new session: a one-time code, the identity
 * provider's verified token, or a password recovery link. The route sets the cookies or returns
 * the tokens, as its channel wants.
 */

/**
 * Signs in (or up) with a verified identity and starts a session on `channel`; `origin` (the
 * request's IP and id) goes on any audit row the sign-in writes.
 */
export async function signInWithIdp(
  context: AppContext,
  identity: VerifiedIdentity,
  channel: SessionChannel,
  origin: RequestOrigin,
  nonce?: PresentedNonce,
): Promise<IdpSignIn & { session: IssuedSession }> {
  // The session is written in the sign-in's transaction: the nonce is spent only with it.
  return signInWithIdentity(context.db, identity, nonce, origin, (client, signIn) =>
    issueTravellerSessionWithin(context, client, signIn.user.id, channel),
  );
}

export interface OtpSignInRequest {
  phone: string;
  code: string;
  method?: OtpMethod | undefined;
  name?: string | undefined;
  email?: string | undefined;
}

/**
 * Checks the one-time code, finds or creates the account of the number, and starts a session. A
 * new account with an e-mail gets its verification link at once, without waiting for the mail
 * server: a failed send is logged and the traveller can resend.
 */
export async function signInWithOtp(
  context: AppContext,
  request: OtpSignInRequest,
  channel: SessionChannel,
  requestId: string,
): Promise<PhoneSignIn & { session: IssuedSession }> {
  const { phone, spend } = await checkOtp(context, request);
  // One transaction spends the code, finds or creates the account and writes the session: a
  // refusal or failure leaves the code usable and no account, so the retry is still a sign-up.
  const signIn = await signInByPhone(
    context.db,
    { phone, name: request.name, email: request.email },
    {
      spend,
      start: (client, account) => {
        if (!account.active) throw new Refusal(403, 'ACCOUNT_DISABLED', 'This account is disabled');
        return issueTravellerSessionWithin(context, client, account.user.id, channel);
      },
    },
  );
  if (signIn.isNewUser && signIn.emailVerificationPending && signIn.user.email) {
    void sendVerificationEmail(context, signIn.user.id, signIn.user.email).catch((error: unknown) =>
      context.logger.warn({ err: error, requestId }, 'verification e-mail not sent at sign-up'),
    );
  }
  return signIn;
}

/** Uses a recovery link to set a new password and starts a web session. */
export async function resetPasswordAndSignIn(
  context: AppContext,
  token: string,
  password: string,
): Promise<{ user: UserSummary | undefined; session: IssuedSession }> {
  // One transaction uses the link, sets the password, ends the other sessions and writes the new
  // one: a failure leaves the link usable and the password unchanged, so the traveller retries it.
  const { started } = await resetPassword(context, token, password, async (client, userId) => ({
    session: await issueTravellerSessionWithin(context, client, userId, 'web'),
    user: await findUserSummary(client, userId),
  }));
  return started;
}
