import { parse as parseCsv } from "csv-parse/sync";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ValidationError } from "../../domain/errors";
import type { FxFileRows } from "../../domain/usecases/fx-rates";

/**
 * The ECB's euro foreign exchange reference rates file, as published: the daily XML (eurofxref-daily.xml, a
 * gesmes envelope of `<Cube time><Cube currency rate/>…`) or the CSV inside eurofxref.zip (`Date, USD, JPY, …` then
 * `28 June 2024, 1.0705, 171.94, …`). The history files of the same forms are read too: their newest day is taken.
 * Only the reading is done here; the rows are checked by the domain (fxTableProblems).
 */

/** Larger than any ECB file of one day (about 1.5 KB) or its full history (a few MB); `fx import` reads no more. */
export const MAX_FX_FILE_BYTES = 8 * 1024 * 1024;

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

const fileError = (message: string) => new ValidationError([{ field: "file", message }], undefined, "FX_FILE_INVALID");

/** The rows of an ECB reference-rate file (XML when it starts with `<`, else CSV); 400 FX_FILE_INVALID naming what is wrong. */
export function readEcbFile(text: string): FxFileRows {
  if (text.length > MAX_FX_FILE_BYTES) throw fileError(`is larger than ${MAX_FX_FILE_BYTES} bytes`);
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body === "") throw fileError("is empty");
  return body.startsWith("<") ? readXml(body) : readCsv(body);
}

/** "28 June 2024" (the daily CSV) or "2024-06-28" (the history CSV) as YYYY-MM-DD; other text as it is (refused later). */
function isoDay(text: string): string {
  const m = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(text.trim());
  if (!m) return text.trim();
  const month = MONTHS.indexOf(m[2].toLowerCase());
  return month < 0 ? text.trim() : `${m[3]}-${String(month + 1).padStart(2, "0")}-${m[1].padStart(2, "0")}`;
}

function readCsv(body: string): FxFileRows {
  let records: string[][];
  try {
    records = parseCsv(body, { trim: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    throw fileError(`is not CSV the ECB publishes: ${error instanceof Error ? error.message.slice(0, 200) : "unreadable"}`);
  }
  const [header, newest] = records;
  if (!header || header[0]?.toLowerCase() !== "date")
    throw fileError('is neither the ECB XML nor its CSV: the CSV starts with a "Date, USD, JPY, …" header line');
  if (!newest) throw fileError("has a header line but no line of rates");
  const rates: Array<[string, string]> = [];
  for (let i = 1; i < header.length; i++) {
    const code = header[i];
    const rate = newest[i] ?? "";
    // The trailing comma of every line makes an empty last column; the history marks days without a rate N/A.
    if (code === "" && rate === "") continue;
    if (rate === "N/A" || rate === "") continue;
    rates.push([code, rate]);
  }
  return { date: isoDay(newest[0] ?? ""), rates };
}

type XmlNode = Record<string, unknown>;

const asList = (value: unknown): XmlNode[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]) as XmlNode[];

function readXml(body: string): FxFileRows {
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw fileError(`is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", removeNSPrefix: true, parseAttributeValue: false, processEntities: false });
  const doc = parser.parse(body) as XmlNode;
  const envelope = doc.Envelope as XmlNode | undefined;
  const outer = asList(envelope?.Cube)[0];
  const day = asList(outer?.Cube)[0];
  if (!envelope || !day || typeof day.time !== "string")
    throw fileError("is XML but not the ECB's reference rates: expected <gesmes:Envelope> holding <Cube><Cube time='YYYY-MM-DD'>");
  const rates: Array<[string, string]> = [];
  for (const cube of asList(day.Cube)) rates.push([String(cube.currency ?? ""), String(cube.rate ?? "")]);
  return { date: day.time, rates };
}
