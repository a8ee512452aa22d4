import { describe, expect, test } from "bun:test";
import { WorkerRpc } from "../../adapters/worker-rpc";

type Request = { echo?: string; progress?: number; fail?: string; silent?: true; crash?: true };
type Reply = { id?: number; echo?: string; step?: number; error?: string; ready?: true; note?: string };

/** What a promise rejected with (bun's `expect(…).rejects` does not let worker messages in while it waits). */
const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: Error) => String(error));

const url = new URL("../support/workers/echo-rpc.worker.ts", import.meta.url).href;
const start = (open = "ok", events: Reply[] = [], failures: Error[] = []) =>
  WorkerRpc.start<Request, Reply>(url, { open }, (r) => (r.ready ? true : r.error ?? "no"), 5_000, {
    name: "echo worker",
    errorOf: (r) => r.error,
    isProgress: (r) => r.step !== undefined,
    onEvent: (r) => events.push(r),
    onFailure: (e) => failures.push(e),
  });

describe("worker RPC", () => {
  test("replies find their calls by id, progress goes to the caller, messages without an id are events", async () => {
    const events: Reply[] = [];
    const rpc = await start("ok", events);
    try {
      const steps: number[] = [];
      const [a, b] = await Promise.all([rpc.call({ echo: "a", progress: 3 }, { progress: (r) => steps.push(r.step!) }), rpc.call({ echo: "b" })]);
      expect([a.echo, b.echo]).toEqual(["a", "b"]);
      expect(steps).toEqual([0, 1, 2]);
      expect(rpc.inFlight).toBe(0);
      await Bun.sleep(20);
      expect(events.map((e) => e.note)).toEqual(["event", "event"]);
    } finally {
      await rpc.stop();
    }
  });

  test("an error reply rejects its call; an unanswered call times out", async () => {
    const rpc = await start();
    try {
      expect(await failureOf(rpc.call({ fail: "no such thing" }))).toContain("no such thing");
      expect(await failureOf(rpc.call({ silent: true }, { timeoutMs: 50, timeoutError: "too slow" }))).toContain("too slow");
      expect((await rpc.call({ echo: "still here" })).echo).toBe("still here");
    } finally {
      await rpc.stop();
    }
  });

  test("a worker that fails rejects every waiting call and says so", async () => {
    const failures: Error[] = [];
    const rpc = await start("ok", [], failures);
    try {
      const waiting = rpc.call({ silent: true });
      expect(await failureOf(Promise.all([waiting, rpc.call({ crash: true })]))).toContain("echo worker failed");
      expect(await failureOf(waiting)).toContain("echo worker failed");
      expect(failures).toHaveLength(1);
    } finally {
      rpc.terminate();
    }
  });

  test("a worker that refuses to start, or cannot be loaded, is reported and ended", async () => {
    expect(await failureOf(start("refuse"))).toContain("refused");
    expect(await failureOf(WorkerRpc.start(new URL("../support/workers/missing.worker.ts", import.meta.url).href, {}, () => true, 5_000, { name: "missing" }))).toBeDefined();
  });
});
