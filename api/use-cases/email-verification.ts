import { findEmailAccount } from '../../db/queries/email-tokens.js';
import { addressToVerify } from '../../domain/account-email.js';
import { MailDeliveryError } from '../../providers/mailer.js';
import type { AppContext } from '../app.js';
import { sendVerificationEmail } from '../auth/email.js';
import { unavailableFor } from '../http/errors.js';

/**
 * Sends the signed-in traveller a new verification link for the address on the account. `limit`
 * counts the send (per traveller) once the account is known to be one that may have it. A mail
 * server that does not take the message is 503 EMAIL_DELIVERY_FAILED with Retry-After; its reason
 * goes to the log.
 */
export async function resendVerification(
  context: AppContext,
  userId: string,
  request: { requestId: string; limit: () => Promise<void> },
): Promise<{ email: string }> {
  const email = addressToVerify(await findEmailAccount(context.db, userId));
  await request.limit();
  try {
    await sendVerificationEmail(context, userId, email);
  } catch (error) {
    if (!(error instanceof MailDeliveryError)) throw error;
    context.logger.error({ requestId: request.requestId, err: error.cause }, 'verification e-mail not sent');
    throw unavailableFor('EMAIL_DELIVERY_FAILED', 'The e-mail could not be sent; try again later');
  }
  return { email };
}
