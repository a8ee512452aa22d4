import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { postJson, runCli, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";

describe("fleet changes by another process", () => {
  test("a CLI fleet import while serve runs is found by search within 1 s", async () => {
    const dir = tempDir();
    const env = { DB_PATH: join(dir, "db.sqlite"), DEMO_DATA: "0" };
    const server = await startServer(env);
    try {
      const reg = await postJson(`${server.base}/api/company/register`, { name: "Import Cars", netid: "IMPORT-OPS", mainEmail: "ops@import.example", password, confirmPassword: password, mainPhone: "+12125550191", coType: "IO" });
      expect(reg.status).toBe(200);
      const jwt = (await postJson(`${server.base}/api/token`, { uid: "IMPORT-OPS", pw: password })).body.token as string;
      const search = async () => {
        const res = await fetch(`${server.base}/api/search/fleet?airports=JFK&q=zeppelin&limit=100`, { headers: { authorization: `Bearer ${jwt}` } });
        return ((await res.json()) as { data: { total: number } }).data.total;
      };
      expect(await search()).toBe(0);

      const csv = join(dir, "fleet.csv");
      const rows = ["type,name,description,imageUrl,maxPassengers,maxLuggage,lat,lon,airports,minimum_rate,hourly_rate,currency,active"];
      for (let i = 0; i < 25; i++) rows.push(`SEDAN,"Zeppelin Sedan ${i}","quiet",,3,3,${(40.64 + i / 1000).toFixed(4)},-73.78,JFK,95.00,80,USD,true`);
      writeFileSync(csv, rows.join("\n") + "\n");
      const imported = await runCli(["fleet", "import", "IMPORT-OPS", csv], env);
      expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: "" });
      const committed = performance.now();

      let found = 0;
      while (found < 25 && performance.now() - committed < 3000) {
        found = await search();
        if (found < 25) await Bun.sleep(25);
      }
      const seenAfter = performance.now() - committed;
      expect(found).toBe(25);
      expect(seenAfter).toBeLessThan(1000);
      console.log(`CLI import visible to the running service's search ${Math.round(seenAfter)} ms after the CLI exited`);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
