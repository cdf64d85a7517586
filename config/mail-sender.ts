import addressparser from 'nodemailer/lib/addressparser';
import { readEmail } from '../domain/email-address.js';

/**
 * The address of a MAIL_FROM value, in its ASCII form: exactly one mailbox, with or without a
 * display name ("Bus Booking <no-reply@bus.example>", "no-reply@bus.example"), as nodemailer reads
 * it when it writes the From header and the envelope sender, whose address passes the rule of every
 * e-mail address (domain/email-address.ts). Null for anything else: no address at all ("Bus Booking",
 * sent with no From header and MAIL FROM:<>), two mailboxes, a group.
 */
export function mailSenderAddress(value: string): string | null {
  const mailboxes = addressparser(value);
  const only = mailboxes.length === 1 ? mailboxes[0]! : undefined;
  return only?.address === undefined ? null : readEmail(only.address);
}

/** Whether an address is on the reserved .localhost domain (RFC 6761): no mail reaches it or comes back. */
export function onLocalhostDomain(address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domain === 'localhost' || domain.endsWith('.localhost');
}
