import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startServer, tempDir, type RunningServer } from "../support/process";

// A slow or silent client must not hold a connection forever (IDLE_TIMEOUT_SECONDS, Bun.serve idleTimeout).
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0", IDLE_TIMEOUT_SECONDS: "2" });
});
afterAll(async () => {
  await server?.stop();
});

/** Opens a raw TCP connection, writes `data`, then stays silent; resolves with ms until the server closed it (or -1 after `limitMs`). */
async function silentAfter(data: string, limitMs: number): Promise<{ closedAfterMs: number; received: string }> {
  let received = "";
  let closedAt = 0;
  const started = performance.now();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data(_s, chunk) {
        received += new TextDecoder().decode(chunk);
      },
      close() {
        closedAt = performance.now();
      },
      error() {
        closedAt ||= performance.now();
      },
    },
  });
  if (data) socket.write(data);
  while (!closedAt && performance.now() - started < limitMs) await Bun.sleep(50);
  if (!closedAt) socket.end();
  return { closedAfterMs: closedAt ? Math.round(closedAt - started) : -1, received };
}

/** Like silentAfter, but trickles `data` one byte per second (a slowloris). */
async function drip(data: string, limitMs: number): Promise<number> {
  let closedAt = 0;
  const started = performance.now();
  const socket = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {}, close: () => void (closedAt = performance.now()), error: () => void (closedAt ||= performance.now()) } });
  for (let i = 0; !closedAt && performance.now() - started < limitMs; i++) {
    socket.write(data[i % data.length]);
    await Bun.sleep(1000);
  }
  if (!closedAt) socket.end();
  return closedAt ? Math.round(closedAt - started) : -1;
}

describe("slow clients", () => {
  // All four at once, so the test takes as long as the slowest.
  test("are cut off: half a request then silence after the idle timeout; no bytes at all, or a byte a second, within Bun's ~10 s request-header limit; an idle keep-alive after its answer", async () => {
    const [halfRequest, silent, dripping, keepAlive, meanwhile] = await Promise.all([
      silentAfter("POST /api/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"uid\":", 20_000),
      silentAfter("", 20_000),
      drip("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(100), 20_000),
      silentAfter("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", 20_000),
      // Meanwhile the server answers everyone else.
      Bun.sleep(500).then(() => fetch(`${server.base}/healthz`)),
    ]);
    expect(meanwhile.status).toBe(200);
    expect(keepAlive.received).toStartWith("HTTP/1.1 200");
    for (const ms of [halfRequest.closedAfterMs, keepAlive.closedAfterMs]) {
      expect(ms).toBeGreaterThan(1000);
      expect(ms).toBeLessThan(7000);
    }
    for (const ms of [silent.closedAfterMs, dripping]) {
      expect(ms).toBeGreaterThan(1000);
      expect(ms).toBeLessThan(16_000);
    }
  }, 30_000);
});
