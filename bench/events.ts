// Part 8: event streams — the service (`serve`, SQLite) under 50 booking changes a second, with 1,000 open event
// streams (100 companies × 10) reading them, against the same load without streams, measured in the same run
// (alternating). Figures: the p99 from a change's request to its event on every stream of both parties, the
// changes' own p99 latency, and the service's resident memory. The streams are this process's fetches: Bun allows
// 256 at once unless BUN_CONFIG_MAX_HTTP_REQUESTS says more (the npm scripts set 4096).
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startService } from "./http-search";
import { BENCH_DIR } from "./fixtures";
import { percentile, printFigure, SMOKE, type Figure } from "./report";

export interface EventsBenchOptions {
  /** Company pairs (requester, provider); each company holds `streamsPerCompany` streams in the streaming phase. */
  pairs: number;
  streamsPerCompany: number;
  changesPerSecond: number;
  seconds: number;
  runs: number;
}

export const DEFAULT_EVENTS_OPTIONS: EventsBenchOptions = SMOKE
  ? { pairs: 5, streamsPerCompany: 2, changesPerSecond: 10, seconds: 2, runs: 1 }
  : { pairs: 50, streamsPerCompany: 10, changesPerSecond: 50, seconds: 15, runs: 2 };

const PASSWORD = "correct horse battery staple";

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Resident memory of a process (kB from /proc), in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

interface Company {
  netid: string;
  token: string;
  jwt: string;
}

/** One open stream: calls `onNote` with each providerNote it carries (the change's number). */
async function openStream(base: string, jwt: string, onNote: (note: string) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${jwt}` }, signal });
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const m = /"providerNote":"(bench-\d+)"/.exec(block);
          if (m) onNote(m[1]);
        }
      }
    } catch {
      // aborted at the end of the phase
    }
  })();
}

interface PhaseResult {
  changeP99: number;
  deliveryP99: number;
  deliveries: number;
  expected: number;
  rss: number;
}

/** Runs the load for `seconds`, with or without streams; changes are provider notes on one booking per pair. */
async function phase(base: string, pid: number, pairs: Array<{ requester: Company; provider: Company; id: string }>, options: EventsBenchOptions, withStreams: boolean, counter: { n: number }): Promise<PhaseResult> {
  const abort = new AbortController();
  const sentAt = new Map<string, number>();
  const delivery: number[] = [];
  if (withStreams) {
    const opens: Promise<void>[] = [];
    for (const { requester, provider } of pairs)
      for (const company of [requester, provider])
        for (let i = 0; i < options.streamsPerCompany; i++)
          opens.push(
            openStream(
              base,
              company.jwt,
              (note) => {
                const t0 = sentAt.get(note);
                if (t0 !== undefined) delivery.push(performance.now() - t0);
              },
              abort.signal,
            ),
          );
    await Promise.all(opens);
    await Bun.sleep(1000);
  }
  const latencies: number[] = [];
  const interval = 1000 / options.changesPerSecond;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let maxRss = rssMiB(pid);
  // Changes at a fixed rate (open loop), bounded by time and count.
  for (let k = 0; performance.now() - start < options.seconds * 1000 && k < options.changesPerSecond * options.seconds * 2; k++) {
    const due = start + k * interval;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const pair = pairs[k % pairs.length];
    const note = `bench-${++counter.n}`;
    const t0 = performance.now();
    sentAt.set(note, t0);
    inFlight.push(
      post(base, `/Platform.svc/providerUpdateStatusByTransactionId/${pair.id}/V1`, { status: "CONFIRMED", providerNote: note }, { token: pair.provider.token }).then(() => {
        latencies.push(performance.now() - t0);
      }),
    );
    if (k % options.changesPerSecond === 0) maxRss = Math.max(maxRss, rssMiB(pid));
  }
  await Promise.all(inFlight);
  // Late events still count (their latency shows it).
  await Bun.sleep(2000);
  maxRss = Math.max(maxRss, rssMiB(pid));
  abort.abort();
  const changes = latencies.length;
  return {
    changeP99: percentile(latencies, 99),
    deliveryP99: withStreams ? percentile(delivery, 99) : NaN,
    deliveries: delivery.length,
    expected: withStreams ? changes * 2 * options.streamsPerCompany : 0,
    rss: maxRss,
  };
}

export async function benchEvents(options: EventsBenchOptions = DEFAULT_EVENTS_OPTIONS): Promise<Figure[]> {
  const dir = join(BENCH_DIR, "events");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { child, base } = await startService(join(dir, "events.sqlite"), { RATE_LIMIT_WRITES_PER_MIN: "0", RATE_LIMIT_REGISTER_PER_HOUR: "0", IDLE_TIMEOUT_SECONDS: "60" });
  try {
    const pairs: Array<{ requester: Company; provider: Company; id: string }> = [];
    const login = async (netid: string, coType: string, n: number): Promise<Company> => {
      await post(base, "/api/company/register", { name: netid, netid, mainEmail: `${netid.toLowerCase()}@bench.example`, password: PASSWORD, confirmPassword: PASSWORD, mainPhone: `+1212556${String(n).padStart(4, "0")}`, coType });
      const token = (await post(base, "/Platform.svc/getToken2", { uid: netid, pw: PASSWORD })) as string;
      const jwt = (await post(base, "/api/token", { uid: netid, pw: PASSWORD })).token as string;
      return { netid, token, jwt };
    };
    for (let p = 0; p < options.pairs; p++) {
      const requester = await login(`EVB-REQ-${p}`, "CO", 2 * p);
      const provider = await login(`EVB-OPS-${p}`, "IO", 2 * p + 1);
      const sent = await post(
        base,
        "/Platform.svc/sendTrip/V1",
        {
          passengerCount: "1",
          locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-01-15T08:00:00" }, dropOff: { locationType: "address", address: "350 5th Ave", city: "New York" } },
          passengers: [{ firstName: "Bench", lastName: "Rider" }],
          affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo: `EVB-${p}`, action: "NEW" },
        },
        { token: requester.token },
      );
      await post(base, `/Platform.svc/providerUpdateStatusByTransactionId/${sent.transactionId}/V1`, { status: "CONFIRMED" }, { token: provider.token });
      pairs.push({ requester, provider, id: sent.transactionId });
    }
    const pid = child.proc.pid;
    const counter = { n: 0 };
    // A warm-up phase, not counted: the first seconds of a fresh process (JIT, caches) would count against the baseline.
    await phase(base, pid, pairs, { ...options, seconds: Math.min(options.seconds, 5) }, false, counter);
    const without: PhaseResult[] = [];
    const withStreams: PhaseResult[] = [];
    for (let run = 0; run < options.runs; run++) {
      without.push(await phase(base, pid, pairs, options, false, counter));
      withStreams.push(await phase(base, pid, pairs, options, true, counter));
      const w = withStreams.at(-1)!;
      console.log(`  run ${run + 1}: without streams p99 ${without.at(-1)!.changeP99.toFixed(1)} ms, rss ${without.at(-1)!.rss.toFixed(0)} MiB; with ${options.pairs * 2 * options.streamsPerCompany} streams p99 ${w.changeP99.toFixed(1)} ms, delivery p99 ${w.deliveryP99.toFixed(1)} ms (${w.deliveries}/${w.expected} deliveries), rss ${w.rss.toFixed(0)} MiB`);
    }
    const streams = options.pairs * 2 * options.streamsPerCompany;
    const load = `${options.changesPerSecond} changes/s for ${options.seconds} s`;
    const figures: Figure[] = [
      {
        part: "events",
        name: `event delivery p99 (change sent → its event on each of ${streams} streams), ${load}`,
        unit: "ms",
        measured: withStreams.map((r) => r.deliveryP99),
        better: "lower",
        target: { value: 1000, text: "≤ 1 s" },
        note: `deliveries received/expected per run: ${withStreams.map((r) => `${r.deliveries}/${r.expected}`).join(", ")}`,
      },
      {
        part: "events",
        name: `booking change p99 with ${streams} open streams, ${load}`,
        unit: "ms",
        measured: withStreams.map((r) => r.changeP99),
        baseline: { name: "no streams", runs: without.map((r) => r.changeP99) },
        better: "lower",
      },
      {
        part: "events",
        name: `service resident memory (peak) with ${streams} open streams, ${load}`,
        unit: "MiB",
        measured: withStreams.map((r) => r.rss),
        baseline: { name: "no streams", runs: without.map((r) => r.rss) },
        better: "lower",
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchEvents();
