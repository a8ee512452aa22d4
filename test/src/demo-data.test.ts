import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { postJson, runCli, startServer, tempDir } from "../support/process";
import { DEMO_LOGIN } from "../../src/demo/seed";

const password = "correct horse battery staple";
const production = { NODE_ENV: "production", JWT_SECRET: "Yq3v9_LkT2w-Rz8pN4xHc6sJ0bFmA7dE", SECRETS_KEY: "5c0f9e2a7d41b8366ea2c1f0937b4d58a16e2f9c04b7d3e85a9c61f27e0b4d93", METRICS_TOKEN: "metrics-token-0123456789" };

describe("demo data", () => {
  test("NODE_ENV=production refuses DEMO_DATA=1 at start and ignores --demo: the published demo login never works", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const refused = await runCli(["serve"], { ...production, DB_PATH: dbPath, DEMO_DATA: "1" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("DEMO_DATA");
    expect((await runCli(["seed-demo"], { ...production, DB_PATH: dbPath })).code).toBe(1);
    const server = await startServer({ ...production, DB_PATH: dbPath }, { args: ["serve", "--demo"] });
    try {
      expect(server.stderr()).not.toContain("Demo login");
      expect((await postJson(`${server.base}/api/token`, DEMO_LOGIN)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  test("is loaded only into an empty database: a database with a company gets no demo accounts", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    let server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
    try {
      const reg = await postJson(`${server.base}/api/company/register`, { name: "Real Cars", netid: "REAL", mainEmail: "ops@real.example", password, confirmPassword: password, mainPhone: "+12125550161", coType: "IO" });
      expect(reg.status).toBe(200);
      await server.stop();
      server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "1" });
      expect(server.stderr()).not.toContain("Demo login");
      // The test servers lift the outbound guard (their partners listen on loopback): the service says so at start.
      expect(server.stderr()).toContain("warning: OUTBOUND_ALLOW_PRIVATE=1");
      expect((await postJson(`${server.base}/api/token`, DEMO_LOGIN)).status).toBe(401);
      expect((await postJson(`${server.base}/api/token`, { uid: "REAL", pw: password })).status).toBe(200);
    } finally {
      await server.stop();
    }
    const again = await runCli(["seed-demo"], { DB_PATH: dbPath });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("only into an empty database");
  });
});
