/** RFC 4180 CSV, as the ID-mapping file is written: the writer, and a reader for the spec's example. */

/** A field quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Lines joined with LF, as the spec's example is; the file ends with a line break. */
export function csvDocument(rows: string[][]): string {
  return rows.map((row) => `${row.map(csvField).join(',')}\n`).join('');
}

/** The rows of a CSV document (quoted fields may hold commas, quotes and line breaks); empty lines are skipped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let touched = false;
  const endRow = () => {
    if (touched || row.length > 0) rows.push([...row, field]);
    row = [];
    field = '';
    touched = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      quoted = true;
      touched = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
      touched = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else {
      field += c;
      touched = true;
    }
  }
  endRow();
  return rows;
}
