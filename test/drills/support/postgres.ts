import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { asServiceUser, databaseUrl, freePort, postgresBinDir } from '../../../scripts/lib/services.js';
import { drillPortBase, spawnChild, type DrillChild } from './child.js';

const isRoot = process.getuid?.() === 0;

/**
 * A throwaway PostgreSQL cluster of one drill, in a temporary folder, started with the project's
 * server binaries: a drill may stop it, which the shared server (54329) must never be.
 */
export class DrillPostgres {
  private server: DrillChild | undefined;

  private constructor(
    private readonly folder: string,
    readonly port: number,
  ) {}

  static async create(): Promise<DrillPostgres> {
    const folder = mkdtempSync(join(tmpdir(), 'drill-pg-'));
    mkdirSync(join(folder, 'socket'));
    if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', folder]);
    const [command, args] = asServiceUser(join(postgresBinDir(), 'initdb'), [
      ...['-D', join(folder, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8'],
      ...['--locale=C.UTF-8', '--no-sync'],
    ]);
    const result = spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr}`);
    // Below the kernel's ephemeral range (32768-60999), which outgoing connections take ports
    // from: a port found free there may be some client's local port by the time the server binds it.
    const cluster = new DrillPostgres(folder, await freePort(drillPortBase(25_400), 40));
    await cluster.start();
    return cluster;
  }

  get serverUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  url(database: string): string {
    return databaseUrl(this.serverUrl, database);
  }

  async start(): Promise<void> {
    const [command, args] = asServiceUser(join(postgresBinDir(), 'postgres'), [
      ...['-D', join(this.folder, 'data'), '-p', String(this.port), '-k', join(this.folder, 'socket')],
      ...['-h', '127.0.0.1', '-c', 'max_connections=100', '-c', 'fsync=off', '-c', 'log_min_messages=fatal'],
      // A backend whose client died (a killed worker) notices within a second, even while it waits on a lock.
      ...['-c', 'client_connection_check_interval=1000'],
    ]);
    const server = spawnChild('postgres', command, args);
    this.server = server;
    await waitForAnswer(this.serverUrl, server);
    // Another server answering on the port would pass for this one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (!server.running()) throw new Error(`PostgreSQL did not start: ${server.lines.join('\n')}`);
  }

  /** A fast shutdown (the postmaster's SIGINT): sessions end with 57P01, then the port closes. */
  async stop(): Promise<void> {
    if (!this.server?.running()) return;
    const postmaster = Number(
      readFileSync(join(this.folder, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    process.kill(postmaster, 'SIGINT');
    await this.server.exited;
  }

  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.serverUrl });
    await client.connect();
    try {
      await client.query(`create database "${name}"`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** Polls until the server answers; fails at once, with its output, when it exited instead. */
async function waitForAnswer(url: string, server: DrillChild): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!server.running()) throw new Error(`PostgreSQL exited before answering: ${server.lines.join('\n')}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
