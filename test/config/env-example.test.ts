import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../../config/index.js';

const documented = new Set(
  readFileSync(join(import.meta.dirname, '..', '..', '.env.example'), 'utf8')
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((key): key is string => key !== undefined),
);

describe('configuration', () => {
  it('.env.example documents every setting the service reads, and nothing else', () => {
    expect([...documented].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });

  it('refuses a bad value at start-up with a message naming the setting', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ACCESS_TOKEN_SECRET/);
  });
});
