import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';

describe('freePort', () => {
  it('never picks a port that fetch refuses ("bad port"), so tests and benchmarks can call what listens there', async () => {
    for (const from of [3659, 6665, 10080]) {
      const port = await freePort(from, 20);
      expect(port).toBeGreaterThan(from);
      const server = createServer((_request, response) => response.end('ok'));
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      try {
        const response = await fetch(`http://127.0.0.1:${port}/`);
        expect(await response.text()).toBe('ok');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });
});
