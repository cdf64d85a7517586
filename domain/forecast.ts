/**
 * Revenue forecast of GET /analytics/advanced.
 *
 * Method: a linear trend with a day-of-week effect, fitted by ordinary least squares to the daily
 * revenue of the last FORECAST_HISTORY_DAYS complete days (8 weeks, today excluded):
 *
 *     revenue(t) = weekday_effect[t mod 7] + slope · t
 *
 * Seven weekday levels and one common slope: intercity travel has a strong weekly rhythm (weekend
 * departures, Thursday and Sunday peaks) on top of a slow trend, and eight parameters are few
 * enough for eight weeks of data. The fit has a closed form (the "within-weekday" estimator):
 * slope = Σ (t − t̄_w)(y − ȳ_w) / Σ (t − t̄_w)², summed over every day with w its weekday and
 * t̄_w, ȳ_w that weekday's means; then weekday_effect[w] = ȳ_w − slope · t̄_w. A series that
 * really is a line plus a weekly pattern is reproduced exactly. The band is ±1.96 residual
 * standard deviations (about 95 % if the residuals were normal; parameter uncertainty ignored),
 * and nothing below zero is forecast. With less than two weeks of history the slope is 0.
 */
export const FORECAST_HISTORY_DAYS = 56;
export const FORECAST_METHOD = 'ols-linear-trend-with-weekday-effects';
const SEASON = 7;
const Z95 = 1.96;

export interface ForecastPoint {
  value: number;
  low: number;
  high: number;
}

export interface RevenueForecast {
  method: typeof FORECAST_METHOD;
  historyDays: number;
  /** Fitted revenue change per day (currency units). */
  slopePerDay: number;
  /** Root mean square of the residuals of the fit. */
  residualStdDev: number;
  /** One point per day after the history, in order. */
  points: ForecastPoint[];
}

/** Mean of the values at the positions of each weekday slot (t mod 7), and of those positions. */
function weekdayMeans(history: readonly number[]): { meanT: number[]; meanY: number[] } {
  const sumT = Array<number>(SEASON).fill(0);
  const sumY = Array<number>(SEASON).fill(0);
  const count = Array<number>(SEASON).fill(0);
  history.forEach((y, t) => {
    sumT[t % SEASON]! += t;
    sumY[t % SEASON]! += y;
    count[t % SEASON]! += 1;
  });
  // A weekday the history has not reached yet (less than a week of data) takes the overall mean.
  const overall = history.length ? history.reduce((sum, y) => sum + y, 0) / history.length : 0;
  return {
    meanT: sumT.map((sum, slot) => (count[slot] ? sum / count[slot] : 0)),
    meanY: sumY.map((sum, slot) => (count[slot] ? sum / count[slot] : overall)),
  };
}

function fittedSlope(history: readonly number[], meanT: number[], meanY: number[]): number {
  if (history.length < 2 * SEASON) return 0;
  let covariance = 0;
  let variance = 0;
  history.forEach((y, t) => {
    const dt = t - meanT[t % SEASON]!;
    covariance += dt * (y - meanY[t % SEASON]!);
    variance += dt * dt;
  });
  return variance > 0 ? covariance / variance : 0;
}

const round = (value: number) => Math.round(value);

/**
 * Forecasts the `horizon` days after `history` (daily values, oldest first, the last one the day
 * before the first forecast day). An empty history forecasts zeros.
 */
export function forecastRevenue(history: readonly number[], horizon: number): RevenueForecast {
  const { meanT, meanY } = weekdayMeans(history);
  const slope = fittedSlope(history, meanT, meanY);
  const effect = meanY.map((mean, slot) => mean - slope * meanT[slot]!);
  const fitted = (t: number) => effect[t % SEASON]! + slope * t;
  const squares = history.reduce((sum, y, t) => sum + (y - fitted(t)) ** 2, 0);
  const freedom = history.length - Math.min(history.length, SEASON + (slope === 0 ? 0 : 1));
  const residualStdDev = freedom > 0 ? Math.sqrt(squares / freedom) : 0;
  const points = Array.from({ length: horizon }, (_, index) => {
    const t = history.length + index;
    const value = history.length ? Math.max(0, fitted(t)) : 0;
    return {
      value: round(value),
      low: round(Math.max(0, value - Z95 * residualStdDev)),
      high: round(value + Z95 * residualStdDev),
    };
  });
  return {
    method: FORECAST_METHOD,
    historyDays: history.length,
    slopePerDay: Math.round(slope * 100) / 100,
    residualStdDev: Math.round(residualStdDev * 100) / 100,
    points,
  };
}
