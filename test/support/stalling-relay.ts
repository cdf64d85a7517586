import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to the run's PostgreSQL that can stall, as a server (or the route to it) that stops
 * answering without resetting anything: stalled, it passes nothing on either way and takes new
 * connections without a word. Passing again, it relays new connections; the stalled ones stay
 * silent, as connections whose packets were lost, until `close` resets them.
 */
export class StallingRelay {
  private readonly sockets = new Set<Socket>();
  private stalled = false;

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Listens on a free local port, relaying to the PostgreSQL of `databaseUrl`. */
  static async start(databaseUrl: string): Promise<StallingRelay> {
    const relay = new StallingRelay(createServer(), new URL(databaseUrl));
    relay.server.listen(0, '127.0.0.1');
    await once(relay.server, 'listening');
    return relay;
  }

  /** The database URL through this relay. */
  url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as AddressInfo).port);
    return url.toString();
  }

  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  pass(): void {
    this.stalled = false;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.stalled) {
      client.pause();
      return;
    }
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname || '127.0.0.1');
    this.track(upstream);
    client.pipe(upstream).pipe(client);
  }
}
