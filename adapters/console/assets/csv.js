// Fleet files read in the browser, as the CLI's `fleet import` reads them: CSV with a header of the API's field
// names (empty cells absent, numbers converted, airports separated by spaces, ; | or ,) or a JSON array.

const NUMERIC = new Set(["maxPassengers", "maxLuggage", "lat", "lon", "minimum_rate", "hourly_rate"]);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** RFC 4180 records with the line each starts on. */
export function parseCsv(text) {
  const records = [];
  let row = [], cell = "", quoted = false, line = 1, startLine = 1, i = 0;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        cell += c;
      }
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      if (row.some((v) => v.trim() !== "")) records.push({ cells: row, line: startLine });
      row = [];
      cell = "";
      startLine = ++line;
    } else cell += c;
  }
  if (quoted) throw new Error(`line ${startLine}: a quoted cell is not closed`);
  row.push(cell);
  if (row.some((v) => v.trim() !== "")) records.push({ cells: row, line: startLine });
  return records;
}

/** A fleet file's rows in the API's shape, and the file line of each row (CSV) for the error report. */
export function readFleetText(name, text) {
  if (/\.json$/i.test(name)) {
    const data = JSON.parse(text);
    if (!Array.isArray(data)) throw new Error("expected a JSON array of fleet entries");
    return { rows: data, lines: [] };
  }
  const [header, ...records] = parseCsv(text);
  if (!header) throw new Error("the file is empty");
  const columns = header.cells.map((c) => c.trim());
  const rows = records.map(({ cells }) => {
    const row = {};
    columns.forEach((column, k) => {
      const value = (cells[k] ?? "").trim();
      if (value === "" || column === "") return;
      if (NUMERIC.has(column)) row[column] = NUMBER.test(value) ? Number(value) : value;
      else if (column === "airports") row[column] = value.split(/[\s;|,]+/).filter(Boolean);
      else if (column === "active") row[column] = /^(true|1|yes)$/i.test(value) ? true : /^(false|0|no)$/i.test(value) ? false : value;
      else row[column] = value;
    });
    return row;
  });
  return { rows, lines: records.map((r) => r.line) };
}
