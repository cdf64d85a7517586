import http from 'node:http';

/** An answer of the API as the load generator reads it: the status and the parsed JSON body. */
export interface JsonAnswer<Body> {
  status: number;
  body: Body;
}

/** Keep-alive connections shared by every request of the process, as many as the loops need. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * The load generator's HTTP client for the benchmarks that compare the API with its bare
 * transactions (journeys, bookings, check-in): a JSON request over node:http with keep-alive. The
 * load generator shares the two cores with the API and PostgreSQL, and global fetch (undici's
 * WHATWG layer) used 100-200 µs more CPU per request than this in the same process (16 loops, a
 * 2 KB answer), CPU that the API under test then did not get. The request is the same on the wire.
 */
export function requestJson<Body>(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<JsonAnswer<Body>> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method,
        agent,
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            resolve({
              status: response.statusCode!,
              body: JSON.parse(Buffer.concat(chunks).toString()) as Body,
            });
          } catch {
            reject(new Error(`${options.method} ${url} → ${response.statusCode}: the answer is not JSON`));
          }
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
