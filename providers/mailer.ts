import { createTransport } from 'nodemailer';
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

type MailerConfig = Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'SMTP_TIMEOUT_MS' | 'NODE_ENV'>;

/**
 * SMTP client (nodemailer). No pool: each message opens its own connection, so an idle process
 * holds no socket and nothing needs closing at shutdown. Without SMTP_URL a development or test
 * process writes messages to the log (links included, development data only); production refuses
 * to pretend a message went out.
 */
export function createMailer(config: MailerConfig, logger: Logger): Mailer {
  if (!config.SMTP_URL)
    return config.NODE_ENV === 'production' ? unconfiguredMailer(logger) : loggingMailer(logger);
  const transport = createTransport({
    url: config.SMTP_URL,
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS,
    dnsTimeout: config.SMTP_TIMEOUT_MS,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({ from: config.MAIL_FROM, ...message });
      } catch (error) {
        throw new MailDeliveryError(error);
      }
    },
  };
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
