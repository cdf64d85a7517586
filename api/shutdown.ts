import type { Server, ServerResponse } from 'node:http';

/**
 * Graceful stop of an HTTP server: on stop() it stops accepting connections, closes idle
 * keep-alive connections, answers every request still running with `Connection: close`, and waits
 * for those requests to finish, at most graceMs; whatever still runs then is cut off.
 */
export function drainable(server: Server) {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  let drained: (() => void) | undefined;

  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    // A request that arrives on a kept-alive connection during the grace is served, then its connection closes.
    if (stopping) response.setHeader('Connection', 'close');
    response.once('close', () => {
      inFlight.delete(response);
      if (stopping && inFlight.size === 0) drained?.();
    });
  });

  return {
    /** Resolves with the number of requests cut off (0 when every one finished within the grace). */
    async stop(graceMs: number): Promise<{ cutOff: number }> {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const response of inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
      server.closeIdleConnections();
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      const cutOff = inFlight.size;
      server.closeAllConnections();
      await closed;
      return { cutOff };
    },
  };
}
