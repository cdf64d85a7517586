import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `KeywordList` as the server lists it: `INDEXED_VALUE_TYPE_KEYWORD_LIST`. */
const indexedType = (type: string) =>
  `INDEXED_VALUE_TYPE_${type.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase()}`;

/**
 * Makes a persistent dev server's custom search attributes the types `wanted` names (`Name=Type`).
 * `start-dev --search-attribute` adds a missing attribute but keeps an existing one's type, so a
 * `.data/temporal/dev.db` made by an older checkout (BookingId a Keyword before it became a keyword
 * list) would refuse every start that sets it. Such an attribute is removed and added again with its
 * type; processes started before keep their old value, which that attribute no longer finds.
 */
export async function alignSearchAttributes(
  temporal: string,
  address: string,
  wanted: string[],
  log: (line: string) => void = (line) => console.log(`[temporal] ${line}`),
): Promise<void> {
  const cli = (...args: string[]) =>
    run(temporal, ['operator', 'search-attribute', ...args, '--address', address]);
  const { stdout } = await cli('list', '--output', 'json');
  const registered =
    (JSON.parse(stdout) as { customAttributes?: Record<string, string> }).customAttributes ?? {};
  for (const attribute of wanted) {
    const [name, type] = attribute.split('=') as [string, string];
    const current = registered[name];
    if (current === undefined || current === indexedType(type)) continue;
    log(`search attribute ${name} is ${current} in the dev.db; re-registering it as ${type}`);
    await cli('remove', '--name', name, '--yes');
    await cli('create', '--name', name, '--type', type);
  }
}
