/**
 * The text grammar of events.quickAdd, small and documented (README): the service's own
 * reading of free text is not public, so the emulator understands only these parts, in any
 * order, and makes the rest the title:
 *
 * - a day: `today`, `tomorrow`, or a date `YYYY-MM-DD` (default today);
 * - a time `HH:MM` (24-hour) or a range `HH:MM-HH:MM`; a single time lasts one hour; without a
 *   time the event lasts the whole day;
 * - a place: ` at <place>` at the end of the text.
 *
 * Times are UTC.
 */
import type { JsonObject } from '../../core/spec.js';

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (time: Date) =>
  `${time.getUTCFullYear()}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())}`;

export function parseQuickAdd(input: string, today: Date): JsonObject {
  let text = ` ${input.trim()} `;
  let location: string | undefined;
  const place = /\s+at\s+(.+?)\s*$/i.exec(text);
  if (place) {
    location = place[1];
    text = `${text.slice(0, place.index)} `;
  }
  let day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const date = /\s(\d{4}-\d{2}-\d{2})(?=\s)/.exec(text);
  if (date?.[1] && !Number.isNaN(Date.parse(`${date[1]}T00:00:00Z`))) {
    day = new Date(`${date[1]}T00:00:00Z`);
    text = text.replace(date[0], ' ');
  } else if (/\stomorrow(?=\s)/i.test(text)) {
    day = new Date(day.getTime() + 86_400_000);
    text = text.replace(/\stomorrow(?=\s)/i, ' ');
  } else {
    text = text.replace(/\stoday(?=\s)/i, ' ');
  }
  const time = /\s([01]?\d|2[0-3]):([0-5]\d)(?:\s*-\s*([01]?\d|2[0-3]):([0-5]\d))?(?=\s)/.exec(text);
  const summary = (time ? text.replace(time[0], ' ') : text).replace(/\s+/g, ' ').trim() || input.trim();
  const where: JsonObject = location ? { location } : {};
  if (!time) {
    const next = new Date(day.getTime() + 86_400_000);
    return { summary, ...where, start: { date: dateOf(day) }, end: { date: dateOf(next) } };
  }
  const at = (hours: string | undefined, minutes: string | undefined) =>
    new Date(day.getTime() + (Number(hours) * 60 + Number(minutes)) * 60_000);
  const start = at(time[1], time[2]);
  let end = time[3] ? at(time[3], time[4]) : new Date(start.getTime() + 3_600_000);
  // `23:00-01:00` ends the next day.
  if (end < start) end = new Date(end.getTime() + 86_400_000);
  return {
    summary,
    ...where,
    start: { dateTime: start.toISOString().replace('.000Z', 'Z') },
    end: { dateTime: end.toISOString().replace('.000Z', 'Z') },
  };
}
