import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { postJson, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";

describe("graceful shutdown", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal}: in-flight requests finish and are committed, new connections are refused, exit 0`, async () => {
      const dbPath = join(tempDir(), "db.sqlite");
      const server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
      // Registrations hash passwords (argon2id), so they are still running when the signal arrives.
      const inFlight = Array.from({ length: 6 }, (_, i) =>
        postJson(`${server.base}/api/company/register`, {
          name: `Shutdown ${i}`, netid: `SHUT-${i}`, mainEmail: `s${i}@shut.example`, password, confirmPassword: password, mainPhone: `+1212555016${i}`, coType: "IO",
        }),
      );
      await Bun.sleep(60);
      server.proc.kill(signal);
      const answers = await Promise.all(inFlight);
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect(await server.proc.exited).toBe(0);
      await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
      const db = new Database(dbPath, { readonly: true });
      expect(db.query("SELECT count(*) AS n FROM companies").get()).toEqual({ n: 6 });
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      db.close();
    });
  }
});
