import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const address = '127.0.0.1:7399';
const mode = process.env.MODE ?? 'both';
if (mode === 'worker' || mode === 'both') {
  const worker = await Worker.create({ connection: await NativeConnection.connect({ address }), taskQueue: 'floor', workflowsPath: require.resolve('./wf.ts'), ...(process.env.THREADS ? { workflowThreadPoolSize: Number(process.env.THREADS) } : {}) });
  void worker.run();
  if (mode === 'worker') await new Promise(() => {});
}
const client = new Client({ connection: await Connection.connect({ address }) });
const { hold, confirm } = await import('./wf.ts');
let done = 0; const lat: number[] = [];
const end = Date.now() + 15_000;
async function loop() {
  while (Date.now() < end) {
    const t0 = performance.now();
    const id = randomUUID();
    const op = new WithStartWorkflowOperation('floor', { workflowId: id, taskQueue: 'floor', workflowIdConflictPolicy: 'FAIL', searchAttributes: { ProcessStatus: ['NEW'], BookingId: [id] } });
    await client.workflow.executeUpdateWithStart(hold, { args: ['x'], startWorkflowOperation: op });
    await client.workflow.getHandle(id).executeUpdate(confirm, { args: ['y'] });
    lat.push(performance.now() - t0); done++;
  }
}
await new Promise((r) => setTimeout(r, 3000));
const { execSync } = await import('node:child_process'); const fs = await import('node:fs');
const pids = () => execSync(`pgrep -f "temporal server start-dev.*7399|floor.ts"`).toString().split(/\s+/).filter(Boolean);
const ticks = () => new Map(pids().map((p) => { try { const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' '); const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('temporal') ? 'server' : (p === String(process.pid) ? 'client' : 'worker?' + p); return [cmd, Number(f[11]) + Number(f[12])]; } catch { return ['x', 0]; } }));
const before = ticks();
const t = Date.now();
await Promise.all(Array.from({ length: 16 }, loop));
lat.sort((a, b) => a - b);
console.log(`${(done / ((Date.now() - t) / 1000)).toFixed(1)} flows/s, p50 ${lat[lat.length >> 1]!.toFixed(0)} ms, p99 ${lat[Math.floor(lat.length * 0.99)]!.toFixed(0)} ms`);
const after = ticks();
for (const [k, v] of after) console.log(k, ((v - (before.get(k) ?? 0)) * 10 / done).toFixed(1), 'ms cpu per flow');
process.exit(0);
