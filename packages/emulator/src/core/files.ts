/** Reading the JSON files the emulator is given (users, seed, state, a spec). */
import { readFileSync } from 'node:fs';

/**
 * The JSON value in `file`. A file that cannot be read or is not JSON is refused with the
 * error `refuse` makes of a message that names the file and what is wrong with it.
 */
export function readJsonFile(file: string, refuse: (message: string) => Error): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw refuse(`${file}: cannot read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw refuse(`${file}: not valid JSON (${(error as Error).message})`);
  }
}
