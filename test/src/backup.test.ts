import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { postJson, runCli, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";

describe("backup and restore", () => {
  test("an online backup of a running service restores to a working database", async () => {
    const dir = tempDir();
    const live = join(dir, "live", "db.sqlite");
    const backup = join(dir, "backups", "snapshot.sqlite");
    const server = await startServer({ DB_PATH: live, DEMO_DATA: "0" });
    try {
      const reg = await postJson(`${server.base}/api/company/register`, { name: "Kept Cars", netid: "KEPT", mainEmail: "k@kept.example", password, confirmPassword: password, mainPhone: "+12125550142", coType: "IO" });
      expect(reg.status).toBe(200);
      const b = await runCli(["backup", backup], { DB_PATH: live });
      expect(b.code).toBe(0);
      // Written after the backup: must not be in the restored database.
      const later = await postJson(`${server.base}/api/company/register`, { name: "Later Cars", netid: "LATER", mainEmail: "l@later.example", password, confirmPassword: password, mainPhone: "+12125550143", coType: "IO" });
      expect(later.status).toBe(200);
      expect((await runCli(["backup", backup], { DB_PATH: live })).code).toBe(1);
    } finally {
      await server.stop();
    }

    const restored = join(dir, "restored", "db.sqlite");
    const r = await runCli(["restore", backup], { DB_PATH: restored });
    expect(r.code).toBe(0);
    const again = await startServer({ DB_PATH: restored, DEMO_DATA: "0" });
    try {
      expect((await postJson(`${again.base}/api/token`, { uid: "KEPT", pw: password })).status).toBe(200);
      expect((await postJson(`${again.base}/api/token`, { uid: "LATER", pw: password })).status).toBe(401);
    } finally {
      await again.stop();
    }
  });

  test("restore refuses a corrupt or missing file and leaves the database alone", async () => {
    const dir = tempDir();
    const bad = join(dir, "bad.sqlite");
    writeFileSync(bad, "this is not a database");
    expect((await runCli(["restore", bad], { DB_PATH: join(dir, "db.sqlite") })).code).toBe(1);
    expect((await runCli(["restore", join(dir, "missing.sqlite")], { DB_PATH: join(dir, "db.sqlite") })).code).toBe(1);
    expect((await runCli(["backup"], { DB_PATH: join(dir, "db.sqlite") })).code).toBe(2);
  });
});
