/** How issues are counted by week in a cluster's `weeklyPulse`. */

const WEEK_MS = 7 * 24 * 3600 * 1000;
export const PULSE_WEEKS = 13;

/** The Monday (UTC) of the week of `date`, as YYYY-MM-DD: how issues are bucketed by week. */
export function weekOf(date: Date | string): string {
  const day = new Date(date);
  const monday = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) - ((day.getUTCDay() + 6) % 7) * 24 * 3600 * 1000;
  return new Date(monday).toISOString().slice(0, 10);
}

/** The 13 weeks that end with the current one, oldest first. */
export function pulseWeeks(now: Date): string[] {
  const current = Date.parse(weekOf(now));
  return Array.from({ length: PULSE_WEEKS }, (_, index) => new Date(current - (PULSE_WEEKS - 1 - index) * WEEK_MS).toISOString().slice(0, 10));
}
