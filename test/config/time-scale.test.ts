import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';

describe('TIME_SCALE and HOLD_MINUTES', () => {
  it('default to real time and a 10-minute hold', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config.TIME_SCALE).toBe(1);
    expect(config.HOLD_MINUTES).toBe(10);
  });

  it('only test mode may shorten waiting times', () => {
    expect(loadConfig({ NODE_ENV: 'test', TIME_SCALE: '0.004' }).TIME_SCALE).toBe(0.004);
    expect(() => loadConfig({ NODE_ENV: 'development', TIME_SCALE: '0.5' })).toThrow(/TIME_SCALE/);
    expect(() => loadConfig({ NODE_ENV: 'test', TIME_SCALE: '0' })).toThrow(/TIME_SCALE/);
    expect(() => loadConfig({ NODE_ENV: 'test', TIME_SCALE: '2' })).toThrow(/TIME_SCALE/);
  });
});
