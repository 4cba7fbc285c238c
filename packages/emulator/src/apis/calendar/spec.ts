/** Calendar's spec by name: what the package exported before it served a second API. */
import { type ApiSpec, loadApiSpec, readApiSpec } from '../../core/spec.js';

/** The Calendar spec; the name predates the second API. */
export type CalendarSpec = ApiSpec;

/** Reads a Calendar spec document (`source` names it in errors). */
export const readCalendarSpec = (document: unknown, source = 'calendar.json'): ApiSpec =>
  readApiSpec(document, source);

/** The bundled Calendar spec of @gspec/specs, or the document in `file`. */
export const loadCalendarSpec = (file?: string): ApiSpec => loadApiSpec('calendar', file);
