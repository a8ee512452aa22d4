import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { postJson, startServer, tempDir, type RunningServer } from "../support/process";
import { regularTrip } from "../support/trips";

const password = "correct horse battery staple";

/** A 24 MiB tmpfs (needs root); undefined when this machine cannot mount one. */
function smallFileSystem(): { dir: string; unmount: () => void } | undefined {
  const dir = tempDir("tripswitch-full-");
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", dir], { stderr: "pipe" });
  if (mount.exitCode !== 0) return undefined;
  return { dir, unmount: () => void Bun.spawnSync(["umount", "-l", dir]) };
}

const fs = process.getuid?.() === 0 ? smallFileSystem() : undefined;
afterAll(() => fs?.unmount());

describe("a full disk", () => {
  test.skipIf(!fs)("the service answers 503 while the disk is full, keeps serving, and loses no acknowledged trip", async () => {
    const { dir } = fs!;
    const env = { DB_PATH: join(dir, "db.sqlite"), DEMO_DATA: "0", RATE_LIMIT_SENDTRIP_PER_MIN: "0" };
    let server: RunningServer | undefined = await startServer(env);
    try {
      for (const [netid, coType, phone] of [["FULL-REQ", "CO", "+12125550181"], ["FULL-OPS", "IO", "+12125550182"]])
        expect((await postJson(`${server.base}/api/company/register`, { name: netid, netid, mainEmail: `${netid.toLowerCase()}@full.example`, password, confirmPassword: password, mainPhone: phone, coType })).status).toBe(200);
      const token = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "FULL-REQ", pw: password })).body as string;
      const send = () => postJson(`${server!.base}/Platform.svc/sendTrip/V1`, regularTrip("FULL-REQ", "FULL-OPS", { specialInstructions: "n".repeat(3000) }), { token });

      // Leave about 1 MiB free: some trips fit (each writes its booking, outbox rows and live events), then the disk is full.
      const filler = join(dir, "filler");
      const { bavail, bsize } = statfsSync(dir);
      writeFileSync(filler, new Uint8Array(Math.max(0, bavail * bsize - 1024 * 1024)));
      const acknowledged: string[] = [];
      let refused: Awaited<ReturnType<typeof postJson>> | undefined;
      const deadline = Date.now() + 30_000;
      while (!refused && Date.now() < deadline && acknowledged.length < 5000) {
        const res = await send();
        if (res.status === 200) acknowledged.push(res.body.transactionId);
        else refused = res;
      }
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(refused?.status).toBe(503);
      expect(refused?.body).toMatchObject({ success: false, code: "STORAGE_FULL" });
      expect(refused?.headers.get("retry-after")).toBe("30");
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      const read = await fetch(`${server.base}/Platform.svc/getReservationByTransactionId/${acknowledged[0]}/V1`, { headers: { token } });
      expect(read.status).toBe(200);
      expect((await send()).status).toBe(503);

      // Room again: writes resume without a restart.
      rmSync(filler);
      let resumed = 0;
      for (let i = 0; i < 20 && resumed === 0; i++) {
        const res = await send();
        if (res.status === 200) {
          resumed++;
          acknowledged.push(res.body.transactionId);
        } else await Bun.sleep(250);
      }
      expect(resumed).toBe(1);
      expect(await server.stop()).toBe(0);

      // After a restart every trip that was answered 200 is there, once.
      server = await startServer(env);
      const jwt = (await postJson(`${server.base}/api/token`, { uid: "FULL-REQ", pw: password })).body.token;
      for (const id of acknowledged) expect((await fetch(`${server.base}/api/reservation/${id}`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(200);
      console.log(`disk full after ${acknowledged.length - 1} trips; every acknowledged trip found after the restart`);
    } finally {
      await server?.stop();
    }
  }, 90_000);
});
