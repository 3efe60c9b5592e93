/**
 * The contribution calendar: a year of days up to today as a heat map (weeks as columns, Sunday
 * first, as GitLab's profile draws it), five levels by GitLab's thresholds, the months above the
 * weeks they begin in and Mon/Wed/Fri beside the rows. Each day is a link to the same page
 * narrowed to that day (`?date=YYYY-MM-DD`), so it works without a script. No inline styles (the
 * page policy forbids them): levels, labels and padding are classes and elements.
 */
import type { ActivityTab } from '../domain/activity-tabs.js';
import { DAY_MS, dayKey } from '../domain/calendar.js';
import { activityHref } from './activity-params.js';
import { type Html, html } from './html.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Sunday first; every other row labelled, as GitLab and GitHub do. */
const WEEKDAYS = ['', 'Mon', '', 'Wed', '', 'Fri', ''];
/** A month's label needs this many weeks of room before the next one. */
const LABEL_WEEKS = 3;

/** GitLab's buckets: none, 1–9, 10–19, 20–29, 30 and more. */
function level(count: number): number {
  if (count === 0) return 0;
  return Math.min(4, Math.floor(count / 10) + 1);
}

function contributions(count: number): string {
  return `${count} contribution${count === 1 ? '' : 's'}`;
}

/** Days since the epoch, by week (Sunday first); null pads the first week before the year. */
function weeksOf(range: { first: number; last: number }): (number | null)[][] {
  const weeks: (number | null)[][] = [];
  let week: (number | null)[] = Array.from(
    { length: new Date(range.first * DAY_MS).getUTCDay() },
    () => null,
  );
  for (let day = range.first; day <= range.last; day++) {
    week.push(day);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0) weeks.push(week);
  return weeks;
}

/** The label above each week: the month that begins in it, and the first week's own month. */
function monthLabels(weeks: readonly (number | null)[][]): (string | null)[] {
  const labels = weeks.map((week) => {
    const first = week.find((day) => day !== null && new Date(day * DAY_MS).getUTCDate() === 1);
    return first === undefined || first === null
      ? null
      : MONTHS[new Date(first * DAY_MS).getUTCMonth()]!;
  });
  const next = labels.findIndex((label, i) => i > 0 && label !== null);
  if (labels[0] === null && (next === -1 || next >= LABEL_WEEKS)) {
    const day = weeks[0]!.find((d) => d !== null)!;
    labels[0] = MONTHS[new Date(day * DAY_MS).getUTCMonth()]!;
  }
  return labels;
}

export interface CalendarLinks {
  /** The page the days link to (`/alice`), keeping its tab. */
  path: string;
  tab: ActivityTab;
  /** The day the list below is narrowed to, drawn as chosen. */
  selected?: string | undefined;
}

export function calendarSection(
  counts: ReadonlyMap<number, number>,
  range: { first: number; last: number },
  links: CalendarLinks,
): Html {
  const weeks = weeksOf(range);
  const labels = monthLabels(weeks);
  let total = 0;
  const columns = weeks.map((week, i) => {
    const cells = week.map((day) => {
      if (day === null) return html`<span class="day pad"></span>`;
      const count = counts.get(day) ?? 0;
      total += count;
      const key = dayKey(day);
      const text = `${contributions(count)} on ${key}`;
      return html`<a
        class="day l${level(count)}"
        href="${activityHref(links.path, { tab: links.tab, date: key })}"
        data-date="${key}"
        data-count="${count}"
        title="${text}"
        aria-label="${text}"
        ${key === links.selected ? html`aria-current="date"` : ''}
      ></a>`;
    });
    return html`<div class="week">
      <span class="month" aria-hidden="true">${labels[i] ?? ''}</span>${cells}
    </div>`;
  });
  return html`<section class="calendar" aria-label="Contributions">
    <div class="calendar-body">
      <div class="calendar-weekdays" aria-hidden="true">
        <span class="month"></span>${WEEKDAYS.map((name) => html`<span>${name}</span>`)}
      </div>
      <div class="calendar-scroll">
        <div
          class="calendar-grid"
          role="group"
          aria-label="${contributions(total)} in the last year"
        >
          ${columns}
        </div>
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
