/** One request a test receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

/**
 * A real HTTP server on 127.0.0.1 standing in for a partner's endpoint or a webhook receiver.
 * `respond` decides each answer (default 200 `{}`); set `hang` to never answer. It echoes the `webhook.verify`
 * challenge of a new webhook URL (kept in `challenges`, not in `received`) unless `state.answerChallenges` is off.
 */
export function startReceiver(respond?: (r: Received, n: number) => Response | Promise<Response>) {
  const received: Received[] = [];
  const challenges: Received[] = [];
  const state = { hang: false, respond, answerChallenges: true };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {}
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => (headers[key] = value));
      const r: Received = { path: new URL(request.url).pathname, headers, body, json };
      if (headers["x-tripswitch-event-type"] === "webhook.verify") {
        challenges.push(r);
        return state.answerChallenges ? Response.json({ challenge: (json as { challenge?: string } | undefined)?.challenge }) : Response.json({});
      }
      received.push(r);
      if (state.hang) return new Promise<Response>(() => {});
      return state.respond ? state.respond(r, received.length) : Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    challenges,
    state,
    /** Waits until `count` requests arrived (bounded). */
    async waitFor(count: number, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await Bun.sleep(20);
      if (received.length < count) throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
      return received;
    },
    stop: () => server.stop(true),
  };
}
