// The ceiling of part 2: a bare Bun.serve answering one prebuilt JSON body (as many bytes as a typical
// search answer) to every request. Usage: bun bench/ceiling-server.ts <port> <bytes>
const [port, bytes] = process.argv.slice(2).map(Number);
const body = Buffer.from(JSON.stringify({ success: true, data: { padding: "x".repeat(Math.max(0, bytes - 40)) } }).slice(0, bytes));
Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) });
console.error(`ceiling listening on 127.0.0.1:${port} with ${body.byteLength} bytes`);
