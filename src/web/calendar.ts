/**
 * The contribution calendar: a year of days up to today as a heat map (weeks as columns, Sunday
 * first, as GitLab's profile draws it), five levels by GitLab's thresholds. No inline styles (the
 * page policy forbids them): levels and padding are classes.
 */
import { DAY_MS, dayKey } from '../domain/calendar.js';
import { type Html, html } from './html.js';

/** GitLab's buckets: none, 1–9, 10–19, 20–29, 30 and more. */
function level(count: number): number {
  if (count === 0) return 0;
  return Math.min(4, Math.floor(count / 10) + 1);
}

function contributions(count: number): string {
  return `${count} contribution${count === 1 ? '' : 's'}`;
}

export function calendarSection(
  counts: ReadonlyMap<number, number>,
  range: { first: number; last: number },
): Html {
  const weekday = new Date(range.first * DAY_MS).getUTCDay();
  const cells: Html[] = [];
  for (let i = 0; i < weekday; i++) cells.push(html`<span class="day pad"></span>`);
  let total = 0;
  for (let day = range.first; day <= range.last; day++) {
    const count = counts.get(day) ?? 0;
    total += count;
    const key = dayKey(day);
    cells.push(
      html`<span
        class="day l${level(count)}"
        data-date="${key}"
        data-count="${count}"
        title="${contributions(count)} on ${key}"
      ></span>`,
    );
  }
  return html`<section class="calendar" aria-label="Contributions">
    <div class="calendar-scroll">
      <div class="calendar-grid" role="img" aria-label="${contributions(total)} in the last year">
        ${cells}
      </div>
    </div>
    <p class="calendar-legend muted">
      <span class="calendar-total">${contributions(total)} in the last year</span>
      <span class="legend"
        >Less <span class="day l0"></span><span class="day l1"></span><span class="day l2"></span
        ><span class="day l3"></span><span class="day l4"></span> More</span
      >
    </p>
  </section>`;
}
