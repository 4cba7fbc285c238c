/** Reading the JSON files the emulator is given (users, seed, state, a spec). */
import { JsonFileError, readJsonFile as readJson } from '@gspec/server-kit';

/**
 * The JSON value in `file`. A file that cannot be read, is empty or is not JSON is refused
 * with the error `refuse` makes of a message that names the file and what is wrong with it
 * (a syntax error as `FILE:LINE:COLUMN: ...`, one line, server-kit's json-file.ts).
 */
export function readJsonFile(file: string, refuse: (message: string) => Error): unknown {
  try {
    return readJson(file);
  } catch (error) {
    if (error instanceof JsonFileError) throw refuse(error.message);
    throw error;
  }
}
