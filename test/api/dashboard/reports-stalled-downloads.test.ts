import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvStream } from '../../../api/use-cases/report-streams.js';
import { reportStreamsPerProcess } from '../../../config/deployment.js';
import { createLogger } from '../../../config/logger.js';
import { readCompanySettings } from '../../../db/queries/company-settings.js';
import { startExport } from '../../../db/writes/reports.js';
import { REPORT_COLUMNS, type ReportRow } from '../../../domain/reports.js';
import { bookableTrip } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { eventually } from '../../support/journeys.js';
import { answerWithin, namedDatabaseUrl, reportCursorConnections } from '../../support/named-connections.js';

/**
 * A CSV or JSON report streams from a cursor in a transaction on one of the API's pooled
 * connections, held until its last byte is written. A client that stops reading (a paused
 * download, a phone gone quiet with its socket open) must neither keep that connection for as long
 * as it keeps its socket, nor, with as many such downloads as the pool has connections, leave every
 * other request of the process waiting for one: a process streams at most REPORT_STREAMS_MAX
 * reports at once (half its pool by default; one more is 503 SERVICE_UNAVAILABLE with Retry-After,
 * recording nothing), and a stream whose client has taken none of its bytes for
 * REPORT_STREAM_STALL_SECONDS is cut off, its connection given back, its export recorded
 * export_failed.
 */
const POOL_MAX = 4;
const STALL_SECONDS = 3;
/**
 * Enough bytes (about 27 MB of CSV) that a client that reads none of them stops the stream on
 * the server: more than the socket buffers of both ends hold, and more than the 16 chunks its stream
 * buffers (16 batches of a thousand rows before chunks were bounded).
 */
const ROWS = 25_000;
const APPLICATION_NAME = `reports-stalled-test-${process.pid}`;

const damascusDay = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Damascus' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

/** Polls `condition` until it holds or `timeoutMs` has passed; answers whether it held. */
const until = (condition: () => Promise<boolean>, timeoutMs: number) =>
  eventually(condition, (held) => held, timeoutMs);

describe('GET /dashboard/api/reports: downloads whose client stops reading', { timeout: 60_000 }, () => {
  const app = useTestApp({
    REPORT_RATE_LIMIT_PER_MINUTE: 10_000,
    DATABASE_POOL_MAX: POOL_MAX,
    DATABASE_URL: namedDatabaseUrl(APPLICATION_NAME),
    REPORT_STREAM_STALL_SECONDS: STALL_SECONDS,
  });
  const cap = () => reportStreamsPerProcess(app.config);
  let companyId = '';
  let cookie = '';
  let staffUserId = '';
  let inspector: pg.Client;
  const sockets: Socket[] = [];
  const path = () =>
    `/dashboard/api/reports?type=bookings&format=csv&locale=en&fromDate=${damascusDay(-1)}&toDate=${damascusDay(0)}`;

  beforeAll(async () => {
    const trip = await bookableTrip(app.db, { seats: 8 });
    companyId = trip.companyId;
    ({ cookie, staffUserId } = await staffSession(app.db, app.config, companyId, 'OWNER'));
    await app.db.query(
      `insert into bookings (booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, created_at)
       select 'RS' || g || substr(md5(random()::text), 1, 6), $1, $2, repeat('x', 1000), '+963900000000', 1,
              array['1'], 'CANCELLED', now() - interval '5 minutes'
         from generate_series(1, $3::int) g`,
      [companyId, trip.tripId, ROWS],
    );
    inspector = new pg.Client({ connectionString: app.config.DATABASE_URL });
    await inspector.connect();
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await inspector?.end();
  });

  const cursorConnections = () => reportCursorConnections(inspector, APPLICATION_NAME);

  const exportsOf = async () =>
    (
      await inspector.query<{ id: string; state: string; error_code: string | null }>(
        `select id, state, error_code from report_exports where company_id = $1 order by created_at, id`,
        [companyId],
      )
    ).rows;

  const get = (target: string) => answerWithin(`${app.baseUrl}${target}`, { headers: { Cookie: cookie } });

  it('as many downloads as the pool has connections stop reading: other requests still answer, the downloads past the cap are 503 with Retry-After and record nothing', async () => {
    expect(cap()).toBe(POOL_MAX / 2);
    const url = new URL(app.baseUrl);
    for (let index = 0; index < POOL_MAX; index += 1) {
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      socket.pause(); // never reads: the server's writes back up
      socket.write(`GET ${path()} HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${cookie}\r\n\r\n`);
      sockets.push(socket);
    }
    expect(await until(async () => (await cursorConnections()) >= cap(), 10_000)).toBe(true);

    // Any other read of the dashboard answers at once.
    expect(await get('/dashboard/api/team')).toMatchObject({ status: 200 });
    // One more download: busy, come back shortly; nothing recorded for it.
    expect(await get(path())).toEqual({ status: 503, retryAfter: '5', errorCode: 'SERVICE_UNAVAILABLE' });
    const recorded = await exportsOf();
    expect({ recorded: recorded.map((row) => row.state), streaming: await cursorConnections() }).toEqual({
      recorded: Array.from({ length: cap() }, () => 'pending'),
      streaming: cap(),
    });
  });

  it('a download whose client has taken no bytes for REPORT_STREAM_STALL_SECONDS is cut off: its connection goes back, its export is recorded export_failed', async () => {
    expect(sockets).toHaveLength(POOL_MAX);
    const ended = await until(
      async () =>
        (await cursorConnections()) === 0 && (await exportsOf()).every((row) => row.state !== 'pending'),
      (STALL_SECONDS + 10) * 1000,
    );
    expect({
      ended,
      exports: (await exportsOf()).map((row) => [row.state, row.error_code]),
      streaming: await cursorConnections(),
    }).toEqual({
      ended: true,
      exports: Array.from({ length: cap() }, () => ['export_failed', 'REPORT_STREAM_STALLED']),
      streaming: 0,
    });

    // What each client gets once it reads: the cut-off downloads a CSV without its end (no last
    // chunk), their sockets closed by the server; the others their 503.
    const answers = await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<{ status: string; closed: boolean; complete: boolean }>((resolve) => {
            const chunks: Buffer[] = [];
            const done = (closed: boolean) => {
              const text = Buffer.concat(chunks).toString('latin1');
              resolve({
                status: text.slice(0, 12),
                closed,
                complete: text.endsWith('\r\n0\r\n\r\n') || text.startsWith('HTTP/1.1 503'),
              });
            };
            const idle = setTimeout(() => done(false), 3_000);
            socket.on('data', (chunk: Buffer) => chunks.push(chunk));
            socket.once('end', () => {
              clearTimeout(idle);
              done(true);
            });
            socket.resume();
          }),
      ),
    );
    const cutOff = { status: 'HTTP/1.1 200', closed: true, complete: false };
    // A refused client's kept-alive socket may have been closed meanwhile, idle: either way.
    const refused = { status: 'HTTP/1.1 503', closed: expect.any(Boolean), complete: true };
    expect(answers.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      ...Array.from({ length: cap() }, () => cutOff),
      ...Array.from({ length: POOL_MAX - cap() }, () => refused),
    ]);

    // The cap's places are free again: a download answers.
    const empty = `/dashboard/api/reports?type=revenue&format=json&locale=en&fromDate=2020-01-01&toDate=2020-01-02`;
    expect(await get(empty)).toMatchObject({ status: 200 });
  });

  it('a stream whose reader stops is ended after the stall deadline and logged once, in one line without a stack', async () => {
    const request = {
      companyId,
      requestedBy: staffUserId,
      type: 'bookings' as const,
      format: 'csv' as const,
      locale: 'en' as const,
      from: damascusDay(-1),
      to: damascusDay(0),
      requestId: 'test-stalled-reader',
    };
    const exportId = await startExport(app.db, request);
    let closed = false;
    async function* endless(): AsyncGenerator<ReportRow[]> {
      try {
        for (;;) yield Array.from({ length: 1000 }, () => ({ bookingCode: 'x'.repeat(200) }));
      } finally {
        closed = true;
      }
    }
    const rows = endless();
    const logged: Record<string, any>[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', {
      write: (line: string) => void logged.push(JSON.parse(line)),
    });
    const stream = csvStream(
      { db: app.db, logger, config: { REPORT_STREAM_STALL_SECONDS: 1 } },
      {
        ...request,
        exportId,
        company: await readCompanySettings(app.db, companyId),
        columns: REPORT_COLUMNS.bookings,
        first: await rows.next(),
        rows,
      },
    );
    const started = Date.now();
    const closing = new Promise((resolve) => stream.once('close', resolve));
    const error = await new Promise<Error | null>((resolve) => {
      stream.once('error', resolve);
      setTimeout(() => resolve(null), 5_000);
      stream.read(); // one read, then none: the stream fills its buffer and waits
    });
    if (error) await closing;
    else stream.destroy();
    expect({
      error: error?.message,
      after: Date.now() - started >= 1000,
      cursorClosed: closed,
      recorded: (await exportsOf()).find((row) => row.id === exportId),
      logged: logged.map((line) => ({
        msg: line.msg,
        stallSeconds: line.stallSeconds,
        err: line.err,
        requestId: line.requestId,
      })),
    }).toEqual({
      error: 'the client took no bytes for 1 s',
      after: true,
      cursorClosed: true,
      recorded: { id: exportId, state: 'export_failed', error_code: 'REPORT_STREAM_STALLED' },
      logged: [
        {
          msg: 'report stream ended: its client stopped reading',
          stallSeconds: 1,
          err: undefined,
          requestId: 'test-stalled-reader',
        },
      ],
    });
  });
});
