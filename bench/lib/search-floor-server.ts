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
import { bodyOf, listenAsFloor } from './floor-listen.js';

type Statement = { name: string; text: string; values: unknown[] };
const table = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { body: string; statement: Statement }[];
const statements = new Map(table.map((entry) => [entry.body, entry.statement]));
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.BENCH_POOL ?? 6),
});

const server = createServer((request, response) => {
  void bodyOf(request).then((body) => {
    const statement = statements.get(body);
    if (!statement) {
      response.writeHead(400).end();
      return;
    }
    pool.query(statement).then(
      (result) => {
        const answer = Buffer.from(JSON.stringify({ success: true, data: { rows: result.rows } }));
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
        response.end(answer);
      },
      () => response.writeHead(500).end(),
    );
  });
});
listenAsFloor(server, () => pool.end());
