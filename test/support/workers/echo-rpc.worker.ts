/// <reference lib="webworker" />
// A worker for tests of the worker-RPC helper: answers `{ open }` with `{ ready }` (no id), and each request
// by what it asks: an echo, progress before the echo, an error reply, silence, or a crash.
export {};
declare const self: Worker;
self.onmessage = (event: MessageEvent) => {
  const m = event.data as { id?: number; open?: string; echo?: string; progress?: number; fail?: string; silent?: true; crash?: true };
  if (m.open !== undefined) {
    self.postMessage(m.open === "refuse" ? { error: "refused" } : { ready: true });
    return;
  }
  if (m.crash) throw new Error("worker crashed");
  if (m.silent) return;
  if (m.fail !== undefined) {
    self.postMessage({ id: m.id, error: m.fail });
    return;
  }
  for (let i = 0; i < (m.progress ?? 0); i++) self.postMessage({ id: m.id, step: i });
  self.postMessage({ id: m.id, echo: m.echo });
  self.postMessage({ note: "event" });
};
