import { describe, expect, it } from 'vitest';
import { FORECAST_METHOD, forecastRevenue } from './forecast.js';

const WEEKLY = [400, -150, -100, 0, 250, 600, -1000];
/** A known series: a line plus a weekly pattern, eight weeks of it. */
const lineWithWeeks = (days: number, level: number, slope: number) =>
  Array.from({ length: days }, (_, t) => level + slope * t + WEEKLY[t % 7]!);

describe('revenue forecast (OLS linear trend with day-of-week effects)', () => {
  it('continues a line plus a weekly pattern exactly, with no band', () => {
    const history = lineWithWeeks(56, 20_000, 125);
    const forecast = forecastRevenue(history, 14);
    expect(forecast.method).toBe(FORECAST_METHOD);
    expect(forecast.slopePerDay).toBe(125);
    expect(forecast.residualStdDev).toBe(0);
    const expected = lineWithWeeks(70, 20_000, 125).slice(56);
    expect(forecast.points.map((point) => point.value)).toEqual(expected);
    expect(forecast.points.every((point) => point.low === point.value && point.high === point.value)).toBe(
      true,
    );
  });

  it('keeps a flat series flat and a pure weekly pattern repeating', () => {
    expect(forecastRevenue(Array(56).fill(5_000), 7).points.map((point) => point.value)).toEqual(
      Array(7).fill(5_000),
    );
    const pattern = lineWithWeeks(28, 10_000, 0);
    const forecast = forecastRevenue(pattern, 7);
    expect(forecast.slopePerDay).toBe(0);
    expect(forecast.points.map((point) => point.value)).toEqual(pattern.slice(0, 7));
  });

  it('recovers the trend through noise and gives a band that widens with it', () => {
    // Deterministic noise of ±300 around the line.
    const noisy = lineWithWeeks(56, 20_000, 50).map(
      (value, t) => value + (t % 3 === 0 ? 300 : t % 3 === 1 ? -300 : 0),
    );
    const forecast = forecastRevenue(noisy, 7);
    expect(forecast.slopePerDay).toBeGreaterThan(40);
    expect(forecast.slopePerDay).toBeLessThan(60);
    expect(forecast.residualStdDev).toBeGreaterThan(100);
    for (const point of forecast.points) {
      expect(point.low).toBeLessThan(point.value);
      expect(point.high).toBeGreaterThan(point.value);
    }
  });

  it('never forecasts below zero, uses no slope on less than two weeks, and zeros without history', () => {
    const falling = Array.from({ length: 56 }, (_, t) => Math.max(0, 5_600 - 100 * t));
    expect(forecastRevenue(falling, 30).points.every((point) => point.value >= 0 && point.low >= 0)).toBe(
      true,
    );
    const short = forecastRevenue([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000], 3);
    expect(short.slopePerDay).toBe(0);
    expect(short.points.map((point) => point.value)).toEqual([400, 500, 600]);
    expect(forecastRevenue([], 7).points).toEqual(Array(7).fill({ value: 0, low: 0, high: 0 }));
    // Three days of history: the weekdays not seen yet take the overall mean.
    expect(forecastRevenue([300, 600, 900], 5).points.map((point) => point.value)).toEqual([
      600, 600, 600, 600, 300,
    ]);
  });
});
