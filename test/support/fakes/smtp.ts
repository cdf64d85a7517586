import { createServer, type AddressInfo, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../../config/index.js';

/**
 * A local SMTP server for tests: it speaks real SMTP (smtp-server), so the app's nodemailer
 * client runs unchanged, and it keeps every accepted message decoded for assertions.
 */
export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface FakeSmtp {
  readonly messages: CapturedMail[];
  /** Messages accepted for this recipient, oldest first. */
  messagesTo(address: string): CapturedMail[];
  /** Resolves with the `count`-th message (1-based) to this recipient, waiting up to timeoutMs. */
  waitForMessage(address: string, options?: { count?: number; timeoutMs?: number }): Promise<CapturedMail>;
  /** While true, every message is refused with a permanent SMTP error (a failing mail server). */
  refuseMail: boolean;
}

/**
 * Starts the server before the app of the same describe block: call it first, then pass
 * `mail.config` to useTestApp. That object holds `settings` plus SMTP_URL, which is filled in
 * once the server listens (before useTestApp's own beforeAll reads it).
 */
export function useFakeSmtp(settings: Partial<Config> = {}): { smtp: FakeSmtp; config: Partial<Config> } {
  const messages: CapturedMail[] = [];
  const config: Partial<Config> = { ...settings };
  const smtp: FakeSmtp = {
    messages,
    refuseMail: false,
    messagesTo: (address) => messages.filter((mail) => mail.to.includes(address.toLowerCase())),
    async waitForMessage(address, { count = 1, timeoutMs = 5000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = smtp.messagesTo(address)[count - 1];
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no message #${count} to ${address} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (smtp.refuseMail) {
          callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          ...decodeMessage(raw),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          raw,
        });
        callback();
      });
    },
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    config.SMTP_URL = `smtp://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { smtp, config };
}

export interface TarpitSmtp {
  /** Connections the server accepted, in total and still open. */
  readonly accepted: number;
  readonly open: number;
  /** Resolves once no accepted connection is open, or throws after timeoutMs. */
  waitUntilAllClosed(timeoutMs: number): Promise<void>;
}

/**
 * A mail server that answers, but slower than any deadline: it greets at once, then answers the
 * first command with one continuation line ("250-...") every `intervalMs` and never the final line.
 * No single wait is as long as SMTP_TIMEOUT_MS, so only a deadline on the whole exchange ends it.
 * Same use as useFakeSmtp: pass `config` (SMTP_URL filled in once it listens) to useTestApp.
 */
export function useTarpitSmtp(
  settings: Partial<Config> = {},
  intervalMs = 200,
): { tarpit: TarpitSmtp; config: Partial<Config> } {
  const config: Partial<Config> = { ...settings };
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
    socket.write('220 tarpit.example ESMTP\r\n');
    socket.once('data', () => {
      timer = setInterval(() => socket.write('250-tarpit.example still thinking\r\n'), intervalMs);
    });
  });
  const tarpit: TarpitSmtp = {
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    async waitUntilAllClosed(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (sockets.size > 0) {
        if (Date.now() > deadline)
          throw new Error(`${sockets.size} connection(s) still open after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    config.SMTP_URL = `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { tarpit, config };
}

type Headers = Map<string, string>;

function splitHeaders(part: string): { headers: Headers; body: string } {
  const end = part.search(/\r?\n\r?\n/);
  const head = end < 0 ? part : part.slice(0, end);
  const body = end < 0 ? '' : part.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers: Headers = new Map();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** RFC 2047 encoded words (=?UTF-8?B?...?= and =?UTF-8?Q?...?=), as nodemailer writes non-ASCII subjects. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g,
      (_match, _charset: string, encoding: string, text: string) =>
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('utf8')
          : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => `%${hex}`)
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
  try {
    return decodeURIComponent(bytes);
  } catch {
    return text;
  }
}

function decodeBody(headers: Headers, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** The text and HTML bodies of a message (single part or nested multipart). */
function decodeParts(headers: Headers, body: string): { text: string; html: string } {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const found = { text: '', html: '' };
    for (const section of body.split(`--${boundary}`).slice(1)) {
      if (section.startsWith('--')) break;
      const part = splitHeaders(section.replace(/^\r?\n/, ''));
      const decoded = decodeParts(part.headers, part.body);
      found.text ||= decoded.text;
      found.html ||= decoded.html;
    }
    return found;
  }
  const content = decodeBody(headers, body);
  return type.toLowerCase().startsWith('text/html')
    ? { text: '', html: content }
    : { text: content, html: '' };
}

function decodeMessage(raw: string): { subject: string; text: string; html: string } {
  const { headers, body } = splitHeaders(raw);
  return { subject: decodeWords(headers.get('subject') ?? ''), ...decodeParts(headers, body) };
}
