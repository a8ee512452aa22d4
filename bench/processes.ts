// Every process a bench starts (the service, the ceiling servers, wrk, the fixture builder, the compile) is
// tracked here and ended with the bench, however the bench ends: normally (each part stops its own), by an
// error, or by SIGINT/SIGTERM/SIGHUP (Ctrl-C, or the smoke test's time limit). Only SIGKILL leaves them.

type Spawned = ReturnType<typeof Bun.spawn>;

const running = new Set<Spawned>();

/** Tracks `proc` until it exits; returns it. */
export function tracked<T extends Spawned>(proc: T): T {
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  return proc;
}

/** Sends SIGTERM to every tracked process still running (synchronous: usable in an exit handler). */
function endAll(): void {
  for (const proc of running) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
  running.clear();
}

process.on("exit", endAll);
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  process.on(signal, () => {
    endAll();
    process.exit(code);
  });
}
