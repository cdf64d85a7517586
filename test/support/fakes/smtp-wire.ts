import { networkInterfaces } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../../config/index.js';

/**
 * A mail server that records the SMTP conversation exactly as the app's nodemailer client wrote it:
 * every command line (AUTH included) and the DATA of each message undecoded, so a test can show what
 * never crossed the wire (test/support/fakes/smtp.ts keeps only the accepted messages, decoded). It
 * can also be reached at this machine's network address, where it stands for a relay on another
 * machine (production treats a loopback relay as local). It answers EHLO with `advertise`, accepts
 * any AUTH and message, and refuses STARTTLS (454, RFC 3207), as a server without TLS, or a network
 * attacker stripping STARTTLS, does.
 */
export interface SmtpSession {
  commands: string[];
  /** The message as sent between DATA and the final ".", '' when none was. */
  data: string;
  closed: boolean;
}

export interface RecordingSmtp {
  readonly sessions: SmtpSession[];
  /** Everything the client sent in the sessions from index `from` on, commands and messages. */
  wireFrom(from: number): string;
  /** Resolves once `count` sessions have ended (the client closed the connection). */
  waitForClosedSessions(count: number, timeoutMs?: number): Promise<void>;
  /** SMTP_URL naming this server by `host` (an address of this machine: 127.0.0.2, [::1], ...). */
  urlAt(host: string): string;
}

export interface RecordingSmtpOptions {
  /** EHLO extensions offered, e.g. ['AUTH PLAIN LOGIN', '8BITMIME']. */
  advertise: string[];
  /** "user:password" put in SMTP_URL. */
  credentials?: string;
  /**
   * 'loopback': listens on 127.0.0.1, SMTP_URL names it so (a relay on the same machine). 'network':
   * listens on every address of this machine, SMTP_URL names its first non-loopback IPv4 address.
   */
  reachedAt: 'loopback' | 'network';
}

/** This machine's address on its network, as a relay on another machine would be reached. */
export function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  if (!found)
    throw new Error('no non-loopback IPv4 address on this machine to stand for a remote mail server');
  return found.address;
}

/** Same use as useFakeSmtp: call it before useTestApp and pass it `config` (SMTP_URL filled in once it listens). */
export function useRecordingSmtp(
  options: RecordingSmtpOptions,
  settings: Partial<Config> = {},
): { smtp: RecordingSmtp; config: Partial<Config> } {
  const sessions: SmtpSession[] = [];
  const sockets = new Set<Socket>();
  const config: Partial<Config> = { ...settings };
  const server = createServer((socket) => {
    sockets.add(socket);
    const session: SmtpSession = { commands: [], data: '', closed: false };
    sessions.push(session);
    socket.on('close', () => {
      session.closed = true;
      sockets.delete(socket);
    });
    socket.on('error', () => undefined);
    socket.write('220 wire.test ESMTP\r\n');
    converse(socket, session, options.advertise);
  });
  const userinfo = options.credentials ? `${options.credentials}@` : '';
  const urlAt = (host: string) => `smtp://${userinfo}${host}:${(server.address() as AddressInfo).port}`;
  beforeAll(async () => {
    const loopback = options.reachedAt === 'loopback';
    await new Promise<void>((resolve) =>
      loopback ? server.listen(0, '127.0.0.1', resolve) : server.listen(0, resolve),
    );
    config.SMTP_URL = urlAt(loopback ? '127.0.0.1' : networkAddress());
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const smtp: RecordingSmtp = {
    sessions,
    urlAt,
    wireFrom: (from) =>
      sessions
        .slice(from)
        .map((session) => [...session.commands, session.data].join('\r\n'))
        .join('\r\n'),
    async waitForClosedSessions(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (sessions.filter((session) => session.closed).length < count) {
        if (Date.now() > deadline) throw new Error(`fewer than ${count} SMTP sessions ended`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
  return { smtp, config };
}

/** Reads command lines (and DATA up to its final ".") and answers each. */
function converse(socket: Socket, session: SmtpSession, advertise: string[]): void {
  let buffer = '';
  let inData = false;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    for (;;) {
      if (inData) {
        const end = buffer.indexOf('\r\n.\r\n');
        if (end < 0) return;
        session.data = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 5);
        inData = false;
        socket.write('250 2.0.0 queued\r\n');
        continue;
      }
      const newline = buffer.indexOf('\r\n');
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 2);
      session.commands.push(line);
      inData = answer(socket, line, advertise);
    }
  });
}

/** Answers one command; true when the message itself (DATA) follows. */
function answer(socket: Socket, line: string, advertise: string[]): boolean {
  const verb = line.split(' ')[0]!.toUpperCase();
  if (verb === 'EHLO') {
    const lines = ['wire.test', ...advertise];
    socket.write(lines.map((text, i) => `250${i === lines.length - 1 ? ' ' : '-'}${text}\r\n`).join(''));
  } else if (verb === 'STARTTLS') {
    socket.write('454 4.7.0 TLS not available\r\n');
  } else if (verb === 'AUTH') socket.write('235 2.7.0 accepted\r\n');
  else if (verb === 'DATA') {
    socket.write('354 go on\r\n');
    return true;
  } else if (verb === 'QUIT') {
    socket.write('221 bye\r\n');
    socket.end();
  } else socket.write('250 ok\r\n');
  return false;
}
