// The ceiling of part 2: a bare Bun.serve answering one prebuilt JSON body (as many bytes as a typical
// search answer) to every request. With "elysia", the same body answered by an Elysia route instead: the
// framework's own floor for this payload, which tells how much of the gap to the ceiling is the framework's.
// Usage: bun bench/ceiling-server.ts <port> <bytes> [elysia]
const [port, bytes] = process.argv.slice(2, 4).map(Number);
const framework = process.argv[4] === "elysia";
const text = JSON.stringify({ success: true, data: { padding: "x".repeat(Math.max(0, bytes - 40)) } }).slice(0, bytes);
if (framework) {
  // Imported only here, so the bare ceiling loads nothing it does not use.
  const { Elysia } = await import("elysia");
  new Elysia()
    .get("/", ({ set }) => {
      set.headers["content-type"] = "application/json";
      return text;
    })
    .listen({ port, hostname: "127.0.0.1" });
} else {
  const body = Buffer.from(text);
  Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) });
}
console.error(`${framework ? "elysia" : "ceiling"} listening on 127.0.0.1:${port} with ${Buffer.byteLength(text)} bytes`);

export {};
