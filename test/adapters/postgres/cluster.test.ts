import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster } from "../../../scripts/pg-cluster";
import { processAlive, waitFor } from "./process";

const ROOT = join(import.meta.dir, "../../..");

describe("scripts/pg-cluster", () => {
  test("a cluster answers on its TCP port and its unix socket, only with its password", async () => {
    const cluster = await startCluster({ database: "cluster_check" });
    try {
      expect(cluster.url).toMatch(/^postgres:\/\/tripswitch:[0-9a-f]{32}@127\.0\.0\.1:\d+\/cluster_check$/);
      for (const url of [cluster.url, cluster.socketUrl]) {
        const sql = new SQL(url, { max: 1 });
        expect((await sql`SELECT current_database() AS db, current_user AS who`)[0]).toEqual({ db: "cluster_check", who: "tripswitch" });
        await sql.close();
      }
      const wrong = new SQL(cluster.url.replace(/:[0-9a-f]{32}@/, ":wrong@"), { max: 1, connectionTimeout: 5 });
      expect(await wrong`SELECT 1`.then(() => "connected", () => "refused")).toBe("refused");
      await wrong.close();
    } finally {
      await cluster.stop();
    }
    expect(processAlive(cluster.pid)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
  }, 60_000);

  test("fails loudly, naming the cause, when PostgreSQL's tools are not there", async () => {
    await expect(startCluster({ binDir: "/nonexistent/postgresql/bin" })).rejects.toThrow("/nonexistent/postgresql/bin/initdb");
  });

  test("a process killed with SIGKILL leaves no cluster behind; the command line prints the URL", async () => {
    const child = Bun.spawn([process.execPath, join(ROOT, "scripts/pg-cluster.ts")], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    try {
      let out = "";
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout as unknown as AsyncIterable<Uint8Array>) {
        out += decoder.decode(chunk);
        if (out.includes("\n")) break;
      }
      const url = out.trim();
      expect(url).toMatch(/^postgres:\/\/tripswitch:[0-9a-f]{32}@127\.0\.0\.1:\d+\/tripswitch$/);
      const sql = new SQL(url, { max: 1 });
      const dir = (await sql`SHOW data_directory`)[0].data_directory as string;
      await sql.close();
      const pid = Number(readFileSync(join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
      expect(processAlive(pid)).toBe(true);
      child.kill("SIGKILL");
      await child.exited;
      expect(await waitFor(() => !processAlive(pid) && !existsSync(join(dir, "..")), 15_000)).toBe(true);
    } finally {
      clearTimeout(timer);
      child.kill("SIGKILL");
    }
  }, 60_000);
});
