// Shared benchmark plumbing: repeated runs, medians, percentiles and the figure lines every part prints.

/** One printed figure: the median of the measured runs against the baseline's median from the same run. */
export interface Figure {
  part: string;
  name: string;
  unit: string;
  measured: number[];
  baseline?: { name: string; runs: number[] };
  /** "higher" when more is better (throughput), "lower" for latencies and sizes. */
  better: "higher" | "lower";
  /** The target, in `unit`, and/or as a ratio against the baseline. */
  target?: { value?: number; ratio?: number; text: string };
  note?: string;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The p-th percentile (0–100) of the samples, nearest rank. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const s = Array.from(samples).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString("en-US");
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(3);
}

/** Whether the figure meets its target (undefined when it has none). */
export function meets(f: Figure): boolean | undefined {
  if (!f.target) return undefined;
  const m = median(f.measured);
  const r = ratioOf(f);
  let ok = true;
  if (f.target.value !== undefined) ok &&= f.better === "higher" ? m >= f.target.value : m <= f.target.value;
  if (f.target.ratio !== undefined && r !== undefined) ok &&= f.better === "higher" ? r >= f.target.ratio : r <= f.target.ratio;
  return ok;
}

export function ratioOf(f: Figure): number | undefined {
  if (!f.baseline) return undefined;
  return median(f.measured) / median(f.baseline.runs);
}

/** Prints one figure: median, baseline median, ratio, the raw runs and the target verdict. */
export function printFigure(f: Figure): void {
  const m = median(f.measured);
  const parts = [`[${f.part}] ${f.name}: ${fmt(m)} ${f.unit} (median of ${f.measured.length}: ${f.measured.map(fmt).join(", ")})`];
  if (f.baseline) {
    const b = median(f.baseline.runs);
    parts.push(`  baseline ${f.baseline.name}: ${fmt(b)} ${f.unit} (median of ${f.baseline.runs.length}: ${f.baseline.runs.map(fmt).join(", ")}); ratio ${fmt(ratioOf(f)!)}×`);
  }
  const verdict = meets(f);
  if (f.target) parts.push(`  target ${f.target.text}: ${verdict ? "MET" : "MISSED"}`);
  if (f.note) parts.push(`  note: ${f.note}`);
  console.log(parts.join("\n"));
}

/** A Markdown table of the figures (for the README). */
export function markdownTable(figures: Figure[]): string {
  const lines = ["| part | figure | target | measured (median) | baseline (median) | ratio | met |", "|---|---|---|---|---|---|---|"];
  for (const f of figures) {
    const r = ratioOf(f);
    const v = meets(f);
    lines.push(
      `| ${f.part} | ${f.name} | ${f.target?.text ?? "—"} | ${fmt(median(f.measured))} ${f.unit} | ${f.baseline ? `${fmt(median(f.baseline.runs))} ${f.unit} (${f.baseline.name})` : "—"} | ${r === undefined ? "—" : `${fmt(r)}×`} | ${v === undefined ? "—" : v ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/** Bench sizes and durations: full by default, tiny with BENCH_SMOKE=1 (the smoke test). */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/** A seeded PRNG for query offsets: the demo fleet's mulberry32. */
export { mulberry32 as seeded } from "../src/demo/fleet";
