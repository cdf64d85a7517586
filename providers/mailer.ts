import { BlockList, isIP } from 'node:net';
import { createTransport } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';

/** One e-mail to one recipient: a plain-text body and an HTML alternative. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Hands the message to the SMTP server; throws MailDeliveryError when it was not accepted. */
  send(message: MailMessage): Promise<void>;
}

/** The SMTP server refused the message or could not be reached. The cause stays in the log. */
export class MailDeliveryError extends Error {
  constructor(cause: unknown) {
    super('The e-mail could not be handed to the SMTP server', { cause });
    this.name = 'MailDeliveryError';
  }
}

/**
 * Headers on every message: the platform writes each one on its own, no person does. Auto-Submitted
 * (RFC 3834 §5) tells vacation responders and other auto-repliers not to answer it, so their replies
 * do not pile up at the no-reply sender; X-Auto-Response-Suppress asks the same of Exchange
 * (out-of-office and auto-replies only: bounces still come back).
 */
export const AUTOMATIC_MAIL_HEADERS = {
  'Auto-Submitted': 'auto-generated',
  'X-Auto-Response-Suppress': 'OOF, AutoReply',
} as const;

type MailerConfig = Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'SMTP_TIMEOUT_MS' | 'NODE_ENV'>;

/**
 * The whole exchange of one message (connect, greeting, commands, body) ends within this many
 * SMTP_TIMEOUT_MS. Each single wait is bounded by SMTP_TIMEOUT_MS, but a server that keeps
 * answering a line at a time never leaves a silent gap that long.
 */
export const SMTP_SEND_DEADLINE_FACTOR = 3;

/**
 * SMTP client (nodemailer). No pool: each message opens its own connection, so an idle process
 * holds no socket and nothing needs closing at shutdown. A send still running at its deadline
 * (SMTP_SEND_DEADLINE_FACTOR × SMTP_TIMEOUT_MS) is abandoned: its connection is closed and it
 * throws MailDeliveryError. Without SMTP_URL a development or test process writes messages to the
 * log (links included, development data only); production refuses to pretend a message went out.
 * Production sends to a server on another machine only over TLS (isLoopbackRelay).
 */
export function createMailer(config: MailerConfig, logger: Logger): Mailer {
  if (!config.SMTP_URL)
    return config.NODE_ENV === 'production' ? unconfiguredMailer(logger) : loggingMailer(logger);
  const server = parseConnectionUrl(config.SMTP_URL);
  const transport = createTransport({
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS,
    dnsTimeout: config.SMTP_TIMEOUT_MS,
    ...server,
    // After the URL's own options, so no ?requireTLS=false in SMTP_URL undoes it.
    ...(config.NODE_ENV === 'production' && !isLoopbackRelay(server) && { requireTLS: true }),
  });
  return {
    async send(message) {
      try {
        // On abort nodemailer closes this message's connection and rejects with an AbortError.
        const signal = AbortSignal.timeout(SMTP_SEND_DEADLINE_FACTOR * config.SMTP_TIMEOUT_MS);
        await transport.sendMail({
          from: config.MAIL_FROM,
          ...message,
          headers: AUTOMATIC_MAIL_HEADERS,
          signal,
        });
      } catch (error) {
        throw new MailDeliveryError(error);
      }
    },
  };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether the SMTP server is on this machine (a relay sidecar): localhost, 127.0.0.0/8 or ::1 (also
 * written IPv4-mapped), as nodemailer itself reads SMTP_URL (nodemailer's default host is localhost).
 * Any other server is reached in production over TLS only: smtps://, or smtp:// with requireTLS, where
 * nodemailer sends STARTTLS and gives up (MailDeliveryError) unless the server takes it, so neither
 * the relay's password (AUTH) nor a message (a recovery link) crosses the network in clear, also when
 * the server offers no STARTTLS or someone on the way strips it from its EHLO answer.
 */
function isLoopbackRelay(server: ReturnType<typeof parseConnectionUrl>): boolean {
  // A well-known provider (?service=...) replaces the URL's host; a proxy (?proxy=...) is in between.
  if (server.service || server.proxy) return false;
  const host = (server.host ?? 'localhost').toLowerCase().replace(/\.$/, '');
  const family = isIP(host);
  if (family === 0) return host === 'localhost';
  return LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

function loggingMailer(logger: Logger): Mailer {
  return {
    send(message) {
      logger.info(
        { mail: { to: message.to, subject: message.subject, text: message.text } },
        'e-mail not sent: SMTP_URL is unset',
      );
      return Promise.resolve();
    },
  };
}

function unconfiguredMailer(logger: Logger): Mailer {
  return {
    send() {
      logger.error('e-mail not sent: SMTP_URL is unset in production');
      return Promise.reject(new MailDeliveryError(new Error('SMTP_URL is unset')));
    },
  };
}
