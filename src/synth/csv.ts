// CSV downloads return their rows, parsed with csv-parse (a well-kept library): on the host to
// infer the rows' schema from the recorded file, and inside the script connector (the sandbox
// has no modules) from csv-parse's own self-contained browser build, embedded in the script.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { inferMerged, type Schema } from './schema-infer.js';

/** The options both sides use: header row → keys, numbers and booleans typed, ragged rows kept. */
export const CSV_OPTIONS = { columns: true, skip_empty_lines: true, cast: true, relax_column_count: true, bom: true, trim: true } as const;

export const isCsv = (contentType: string, filename: string) =>
  /text\/csv|comma-separated|application\/csv|excel/i.test(contentType) || /\.csv$/i.test(filename);

/** Records of a recorded CSV file and their schema, or null when it does not parse as CSV. */
export function csvRows(text: string): { rows: Record<string, unknown>[]; schema: Schema } | null {
  try {
    const rows = parse(text, CSV_OPTIONS) as Record<string, unknown>[];
    if (!rows.length) return null;
    return { rows, schema: { type: 'array', items: inferMerged(rows) } };
  } catch {
    return null;
  }
}

let cached: string | null = null;
/** csv-parse's self-contained sync build (defines `csv_parse_sync`), for script connectors. */
export function csvParserSource(): string {
  if (cached) return cached;
  const cjs = createRequire(import.meta.url).resolve('csv-parse/sync');
  cached = fs.readFileSync(path.join(path.dirname(cjs), '..', 'iife', 'sync.js'), 'utf8');
  return cached;
}
