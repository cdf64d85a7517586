import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { bookableTrip } from '../support/bookings.js';
import { useTestApp } from '../support/harness.js';
import { staffSession } from '../support/journey-rows.js';
import { eventually } from '../support/journeys.js';

const root = join(import.meta.dirname, '..', '..');

/** About 20 MB of CSV: far more than the sockets of both ends buffer, so a download is mid-way when its client resets. */
const ROWS = 20_000;

const damascusDay = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Damascus' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

/** Lines of standard error that are part of a stack trace, or name the error a stack would follow. */
const stackLines = (text: string) =>
  text.split('\n').filter((line) => /^\s*at\s|ECONNRESET|EPIPE|premature close|aborted|Error/.test(line));

/**
 * Sends `text` on a fresh connection and resets it (TCP RST) once `resetWhen` resolves: after a
 * delay for a body cut short, at the first bytes of the answer for a download.
 */
function sendThenReset(port: number, text: string, resetWhen: 'firstBytes' | number) {
  return new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => resolve());
    const reset = () => {
      socket.resetAndDestroy();
      resolve();
    };
    if (resetWhen === 'firstBytes') socket.once('data', reset);
    else setTimeout(reset, resetWhen);
    socket.write(text);
  });
}

/**
 * README "Logs": every process writes JSON lines to standard output, and a failure is a concise
 * line, never a stack. A client that resets its connection while it sends its body or while it
 * downloads an answer made Koa print "Error: read ECONNRESET" (or a premature close) and its stack
 * to standard error, outside the JSON log: the real API process (api/server.ts) now logs one JSON
 * line with the request's id and nothing on standard error.
 */
describe('an API process whose clients reset their connections', { timeout: 120_000 }, () => {
  const app = useTestApp();
  let child: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';
  let port = 0;
  let cookie = '';

  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
  const linesOf = (requestId: string) => lines().filter((line) => line.requestId === requestId);

  beforeAll(async () => {
    const trip = await bookableTrip(app.db, { seats: 8 });
    ({ cookie } = await staffSession(app.db, app.config, trip.companyId, 'OWNER'));
    await app.db.query(
      `insert into bookings (booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, created_at)
       select 'CR' || g || substr(md5(random()::text), 1, 6), $1, $2, repeat('x', 1000), '+963900000000', 1,
              array['1'], 'CANCELLED', now() - interval '5 minutes'
         from generate_series(1, $3::int) g`,
      [trip.companyId, trip.tripId, ROWS],
    );
    port = await freePort(4700, 100);
    child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const listening = await eventually(
      async () => stdout.includes('"msg":"api listening"'),
      (held) => held,
      60_000,
    );
    expect(listening, `the API did not start: ${stderr}`).toBe(true);
  }, 120_000);

  afterAll(() => {
    child?.kill('SIGKILL');
  });

  /**
   * The reset of request `requestId` left one info line 'client went away' (no error, no stack) and
   * nothing on standard error since `stderrBefore`.
   */
  async function expectOneQuietLine(requestId: string, stderrBefore: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const gone = linesOf(requestId).filter((line) => line.msg === 'client went away');
    expect({ stderr: stackLines(stderr.slice(stderrBefore)), gone: gone.length }).toEqual({
      stderr: [],
      gone: 1,
    });
    expect(gone.every((line) => line.level === 30 && line.err === undefined)).toBe(true);
    expect(JSON.stringify(gone)).not.toMatch(/\bat .+:\d+:\d+/);
  }

  it('a client that resets while sending its body: one JSON line with its requestId, no stack on standard error', async () => {
    const stderrBefore = stderr.length;
    const requestId = `reset-upload-${randomUUID()}`;
    const email = `reset-${randomUUID().slice(0, 8)}@example.com`;
    const head =
      'POST /api/waitlist HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `X-Request-Id: ${requestId}\r\nContent-Length: 100`;
    await sendThenReset(port, `${head}\r\n\r\n{"email":"${email}"`, 300);
    expect(
      await eventually(
        async () => linesOf(requestId).find((line) => line.msg === 'request'),
        (line) => line !== undefined,
        10_000,
      ),
    ).toMatchObject({ status: 400, errorCode: 'BAD_REQUEST' });
    await expectOneQuietLine(requestId, stderrBefore);
    // Nothing was written for the body that never arrived.
    expect(await app.db.query(`select 1 from waitlist_entries where email = $1`, [email])).toEqual([]);
  });

  it('a client that resets during a CSV download: its stream stops, one JSON line with its requestId, no stack on standard error', async () => {
    const stderrBefore = stderr.length;
    const requestId = `reset-download-${randomUUID()}`;
    const path = `/dashboard/api/reports?type=bookings&format=csv&locale=en&fromDate=${damascusDay(-1)}&toDate=${damascusDay(0)}`;
    await sendThenReset(
      port,
      `GET ${path} HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nX-Request-Id: ${requestId}\r\n\r\n`,
      'firstBytes',
    );
    const stopped = await eventually(
      async () => linesOf(requestId).some((line) => line.msg === 'report stream stopped before its end'),
      (held) => held,
      10_000,
    );
    expect({ stopped, request: linesOf(requestId).find((line) => line.msg === 'request')?.status }).toEqual({
      stopped: true,
      request: 200,
    });
    await expectOneQuietLine(requestId, stderrBefore);
    // Every line the process wrote is JSON (lines() throws on one that is not).
    expect(lines().length).toBeGreaterThan(0);
  });
});
