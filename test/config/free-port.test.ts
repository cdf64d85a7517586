import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';

describe('freePort', () => {
  it('never picks a port that fetch refuses ("bad port"), so tests and benchmarks can call what listens there', async () => {
    // 3659, which the drills once drew, is passed over without being tried: nothing listens or connects.
    await expect(freePort(3659, 1)).rejects.toThrow('no free port near 3659');
    // Runs of refused ports that no test, drill or benchmark draws from (they use 3300-3999,
    // 7233-7799 and 25400-25549): one picking the same free port at the same moment would fail.
    for (const from of [1719, 6665, 10080]) {
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
