import { readFileSync, statSync } from "node:fs";
import { extname } from "node:path";
import { parse } from "csv-parse/sync";
import type { FleetEntryInput } from "../../domain/fleet/validation";

/** Files larger than this are refused before reading (10,000 rows fit easily). */
export const MAX_FLEET_FILE_BYTES = 16 * 1024 * 1024;

/** A fleet file's rows in the API's input shape, and the line each row starts on (CSV) for error reports. */
export interface FleetFile {
  rows: unknown[];
  /** 1-based line of row i in the file; undefined for JSON. */
  lineOf(row: number): number | undefined;
}

/** A file that cannot be read as a fleet file at all (bad extension, size, syntax). */
export class FleetFileError extends Error {}

const NUMERIC_COLUMNS = new Set(["maxPassengers", "maxLuggage", "lat", "lon", "minimum_rate", "hourly_rate"]);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * Reads a .json (array of entries) or .csv file. CSV has a header row with the API field names;
 * empty cells are absent, numbers are converted, `airports` holds codes separated by spaces, `;` or `|`,
 * `active` is true/false/1/0. A cell that is not a number stays text, so validation names it.
 */
export function readFleetFile(path: string): FleetFile {
  const ext = extname(path).toLowerCase();
  if (ext !== ".csv" && ext !== ".json") throw new FleetFileError(`${path}: expected a .csv or .json file`);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new FleetFileError(`${path}: file not found`);
  }
  if (size > MAX_FLEET_FILE_BYTES) throw new FleetFileError(`${path}: larger than ${MAX_FLEET_FILE_BYTES} bytes`);
  const text = readFileSync(path, "utf8");

  if (ext === ".json") {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new FleetFileError(`${path}: not valid JSON (${error instanceof Error ? error.message : error})`);
    }
    if (!Array.isArray(data)) throw new FleetFileError(`${path}: expected a JSON array of fleet entries`);
    return { rows: data, lineOf: () => undefined };
  }

  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true, max_record_size: 65536 }) as typeof records;
  } catch (error) {
    throw new FleetFileError(`${path}: not valid CSV (${error instanceof Error ? error.message : error})`);
  }
  return { rows: records.map((r) => csvRow(r.record)), lineOf: (row) => records[row]?.info.lines };
}

function csvRow(record: Record<string, string>): FleetEntryInput {
  const row: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(record)) {
    const value = raw.trim();
    if (value === "") continue;
    if (NUMERIC_COLUMNS.has(column)) row[column] = NUMBER.test(value) ? Number(value) : value;
    else if (column === "airports") row[column] = value.split(/[\s;|,]+/).filter(Boolean);
    else if (column === "active") row[column] = /^(true|1|yes)$/i.test(value) ? true : /^(false|0|no)$/i.test(value) ? false : value;
    else row[column] = value;
  }
  return row;
}
