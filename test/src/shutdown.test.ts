import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { postJson, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";

describe("graceful shutdown", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal}: in-flight requests finish and are committed, new connections are refused, exit 0`, async () => {
      const dbPath = join(tempDir(), "db.sqlite");
      // The service's own argon2id cost: registrations take long enough to be running when the signal arrives.
      const server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0", PASSWORD_HASH_COST: "owasp" });
      // Registrations hash passwords (argon2id), so they are still running when the signal arrives.
      const inFlight = Array.from({ length: 6 }, (_, i) =>
        postJson(`${server.base}/api/company/register`, {
          name: `Shutdown ${i}`, netid: `SHUT-${i}`, mainEmail: `s${i}@shut.example`, password, confirmPassword: password, mainPhone: `+1212555016${i}`, coType: "IO",
        }),
      );
      await Bun.sleep(60);
      server.proc.kill(signal);
      // On a loaded machine a request may not have been accepted yet when the signal came: its connection is
      // refused (the client may retry). Every request that was accepted is answered 200 and committed.
      const settled = await Promise.allSettled(inFlight);
      const answered = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value.status] : []));
      const refused = settled.flatMap((s) => (s.status === "rejected" ? [String((s.reason as Error & { code?: string }).code ?? s.reason)] : []));
      expect(answered.length).toBeGreaterThan(0);
      expect(answered).toEqual(Array(answered.length).fill(200));
      for (const reason of refused) expect(reason).toMatch(/ECONNRESET|ConnectionRefused|ECONNREFUSED/);
      expect(await server.proc.exited).toBe(0);
      await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
      const db = new Database(dbPath, { readonly: true });
      expect(db.query("SELECT count(*) AS n FROM companies").get()).toEqual({ n: answered.length });
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      db.close();
    });
  }
});
