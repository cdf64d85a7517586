import { condition, defineUpdate, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
const UPSERT = false;
export const hold = defineUpdate<string, [string]>('hold');
export const confirm = defineUpdate<string, [string]>('confirm');
export async function floor(): Promise<string> {
  let phase = 'NEW';
  setHandler(hold, async (x) => { phase = 'HELD'; if ((globalThis as any).__up ?? UPSERT) upsertSearchAttributes({ ProcessStatus: ['HELD'] }); void sleep(600_000).then(() => { phase = 'EXPIRED'; }); return x; });
  setHandler(confirm, async (x) => { phase = 'CONFIRMED'; if (UPSERT) upsertSearchAttributes({ ProcessStatus: ['CONFIRMED'] }); return x; });
  await condition(() => phase !== 'NEW' && phase !== 'HELD');
  return phase;
}
