/** Operating dates are calendar dates in Asia/Damascus. */
export const OPERATING_TIME_ZONE = 'Asia/Damascus';

const dateFormatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: OPERATING_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The Damascus calendar date (YYYY-MM-DD) of an instant. */
export function damascusDate(instant: Date): string {
  return dateFormatter.format(instant);
}

/** The instant a Damascus calendar day starts (Syria keeps UTC+3 all year since 2022). */
export function damascusDayStart(date: string): Date {
  return new Date(`${date}T00:00:00+03:00`);
}

export function addMinutes(instant: Date, minutes: number): Date {
  return new Date(instant.getTime() + minutes * 60_000);
}
