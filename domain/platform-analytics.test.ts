import { describe, expect, it } from 'vitest';
import { analyticsPeriod, metDeadlineShare, periodDates } from './platform-analytics.js';

describe('platform analytics rules', () => {
  const now = new Date('2026-11-24T22:30:00Z'); // 01:30 on 25 November in Damascus

  it('defaults to the last 30 Damascus days, today included', () => {
    expect(analyticsPeriod({}, now)).toEqual({ from: '2026-10-27', to: '2026-11-25' });
    expect(analyticsPeriod({ to: '2026-02-01' }, now)).toEqual({ from: '2026-01-03', to: '2026-02-01' });
  });

  it('refuses a reversed period or one longer than 92 days with 400 ANALYTICS_PERIOD_INVALID', () => {
    expect(() => analyticsPeriod({ from: '2026-11-02', to: '2026-11-01' }, now)).toThrow(
      expect.objectContaining({ status: 400, code: 'ANALYTICS_PERIOD_INVALID' }),
    );
    expect(() => analyticsPeriod({ from: '2026-01-01', to: '2026-04-03' }, now)).toThrow(
      expect.objectContaining({ code: 'ANALYTICS_PERIOD_INVALID' }),
    );
    expect(analyticsPeriod({ from: '2026-01-01', to: '2026-04-02' }, now).from).toBe('2026-01-01');
  });

  it('lists every day of a period across a month end', () => {
    expect(periodDates('2026-01-30', '2026-02-02')).toEqual([
      '2026-01-30',
      '2026-01-31',
      '2026-02-01',
      '2026-02-02',
    ]);
  });

  it('measures the share of manual decisions made in time against those plus the expired ones', () => {
    expect(metDeadlineShare({ decided: 3, expired: 1 })).toBe(0.75);
    expect(metDeadlineShare({ decided: 0, expired: 0 })).toBeNull();
    expect(metDeadlineShare({ decided: 1, expired: 2 })).toBe(0.3333);
  });
});
