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
import { addDays, dateInZone, wallOfDate } from './time.js';

const pad = (n: number) => String(n).padStart(2, '0');
const DAY_MINUTES = 24 * 60;

export function parseQuickAdd(input: string, today: Date): JsonObject {
  let text = ` ${input.trim()} `;
  let location: string | undefined;
  const place = /\s+at\s+(.+?)\s*$/i.exec(text);
  if (place) {
    location = place[1];
    text = `${text.slice(0, place.index)} `;
  }
  let day = dateInZone(today.getTime(), 'UTC');
  const date = /\s(\d{4}-\d{2}-\d{2})(?=\s)/.exec(text);
  if (date?.[1] && !Number.isNaN(wallOfDate(date[1]))) {
    day = date[1];
    text = text.replace(date[0], ' ');
  } else if (/\stomorrow(?=\s)/i.test(text)) {
    day = addDays(day, 1);
    text = text.replace(/\stomorrow(?=\s)/i, ' ');
  } else {
    text = text.replace(/\stoday(?=\s)/i, ' ');
  }
  const time = /\s([01]?\d|2[0-3]):([0-5]\d)(?:\s*-\s*([01]?\d|2[0-3]):([0-5]\d))?(?=\s)/.exec(text);
  const summary = (time ? text.replace(time[0], ' ') : text).replace(/\s+/g, ' ').trim() || input.trim();
  const where: JsonObject = location ? { location } : {};
  if (!time) return { summary, ...where, start: { date: day }, end: { date: addDays(day, 1) } };
  // Minutes from the day's start on the UTC clock; a range past midnight (`23:00-01:00`) ends the next day.
  const minutes = (hours: string | undefined, mins: string | undefined) => Number(hours) * 60 + Number(mins);
  const from = minutes(time[1], time[2]);
  let to = time[3] ? minutes(time[3], time[4]) : from + 60;
  if (to < from) to += DAY_MINUTES;
  const at = (total: number) => {
    const inDay = total % DAY_MINUTES;
    return `${addDays(day, Math.floor(total / DAY_MINUTES))}T${pad(Math.floor(inDay / 60))}:${pad(inDay % 60)}:00Z`;
  };
  return { summary, ...where, start: { dateTime: at(from) }, end: { dateTime: at(to) } };
}
