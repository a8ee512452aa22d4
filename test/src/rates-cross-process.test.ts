import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerCompany, runCli, startServer, tempDir } from "../support/process";

// docs/rates.md#setting-the-card: the CLI `rates import` replaces a company's card; run while `serve` runs on the same SQLite file,
// the running service prices by the new card within a second (as a CLI fleet import is found, docs/operator.md#fleet-import).
const card = (base: string) => ({ currency: "USD", distance: [{ id: "km", base, includedKm: 10, perKm: "2.40" }] });

describe("rate cards changed by another process", () => {
  test("a CLI rates import, and a second one in the same second, while serve runs are read by the service within 1 s", async () => {
    const dir = tempDir();
    const env = { DB_PATH: join(dir, "db.sqlite"), DEMO_DATA: "0" };
    const server = await startServer(env);
    try {
      const { jwt } = await registerCompany(server, "CARD-OPS", "IO");
      const base = async () => {
        const res = await fetch(`${server.base}/api/company/rates`, { headers: { authorization: `Bearer ${jwt}` } });
        return res.status === 200 ? ((await res.json()) as { data: { distance: Array<{ base: string }> } }).data.distance[0]?.base : `HTTP ${res.status}`;
      };
      const put = await fetch(`${server.base}/api/company/rates`, {
        method: "PUT",
        headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
        body: JSON.stringify(card("50.00")),
      });
      expect(put.status).toBe(200);
      expect(await base()).toBe("50.00");

      const importCard = async (price: string) => {
        const file = join(dir, `card-${price}.json`);
        writeFileSync(file, JSON.stringify(card(price)));
        const r = await runCli(["rates", "import", "CARD-OPS", file], env);
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      };
      const seen = async (want: string) => {
        const committed = performance.now();
        let got = await base();
        while (got !== want && performance.now() - committed < 3000) {
          await Bun.sleep(25);
          got = await base();
        }
        expect(got).toBe(want);
        return performance.now() - committed;
      };
      await importCard("61.00");
      expect(await seen("61.00")).toBeLessThan(1000);
      // Read by the service, then replaced again at once (most likely within the same second: same updatedAt).
      await importCard("62.00");
      expect(await seen("62.00")).toBeLessThan(1000);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
