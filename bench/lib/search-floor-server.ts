/**
 * The least a Node HTTP endpoint over the search SQL can do: node:http, one pg pool, the request
 * body looked up (not validated) in the table of bodies the benchmark sends, the named prepared
 * statement run, its rows written as JSON. No framework, no validation, no mapping, no log line.
 * bench:search measures it beside the API and the raw SQL (see search-floor.ts).
 *
 * argv: <table.json> with [{ body, statement }]; env: DATABASE_URL, BENCH_POOL.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';

type Statement = { name: string; text: string; values: unknown[] };
const table = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { body: string; statement: Statement }[];
const statements = new Map(table.map((entry) => [entry.body, entry.statement]));
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.BENCH_POOL ?? 6),
});

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const statement = statements.get(Buffer.concat(chunks).toString('utf8'));
    if (!statement) {
      response.writeHead(400).end();
      return;
    }
    pool.query(statement).then(
      (result) => {
        const body = Buffer.from(JSON.stringify({ success: true, data: { rows: result.rows } }));
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        response.end(body);
      },
      () => response.writeHead(500).end(),
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
