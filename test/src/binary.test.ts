import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, postJson, runCli, startServer, tempDir } from "../support/process";

describe("the compiled binary", () => {
  test("runs from an empty directory: creates its database, registers, issues both tokens and serves offline docs", async () => {
    const out = join(tempDir("tripswitch-build-"), "tripswitch");
    // The entrypoints `npm run build` compiles: the service and its workers.
    const script: string = (await Bun.file(join(ROOT, "package.json")).json()).scripts.build;
    const entrypoints = script.split(/\s+/).filter((arg) => arg.endsWith(".ts"));
    expect(entrypoints).toEqual(expect.arrayContaining(["src/main.ts", "src/workers/fleet-index-builder.worker.ts", "src/workers/checkpoint.worker.ts", "src/workers/booking-writer.worker.ts", "src/workers/gazetteer.worker.ts"]));
    const build = await runCli(["build", "--compile", ...entrypoints.map((e) => join(ROOT, e)), "--outfile", out], {}, { command: [BUN], timeoutMs: 120_000 });
    expect(build.code).toBe(0);

    // It knows its own version.
    const version = await runCli(["--version"], {}, { command: [out] });
    expect(version.stdout).toBe(`tripswitch ${(await Bun.file(join(ROOT, "package.json")).json()).version}\n`);

    const cwd = tempDir("tripswitch-empty-");
    expect(readdirSync(cwd)).toEqual([]);
    // Its workers all start (the gazetteer's too: warmed at start, as in production).
    const server = await startServer({ DEMO_DATA: "0", LOG_LEVEL: "warn", GAZETTEER_WARM: "1" }, { command: [out], cwd, captureStdout: true });
    try {
      expect(existsSync(join(cwd, "data", "tripswitch.sqlite"))).toBe(true);
      const password = "correct horse battery staple";
      const reg = await postJson(`${server.base}/api/company/register`, {
        name: "Binary Cars", mainEmail: "bin@cars.example", password, confirmPassword: password, mainPhone: "+12125550188", coType: "IO",
      });
      expect(reg.status).toBe(200);
      const netid = reg.body.data.netid;
      const core = await postJson(`${server.base}/api/token`, { uid: netid, pw: password });
      expect(core.status).toBe(200);
      expect(core.body.token.split(".")).toHaveLength(3);
      const platform = await postJson(`${server.base}/Platform.svc/getToken2/V1`, { uid: netid, pw: password });
      expect(platform.status).toBe(200);
      expect(typeof platform.body).toBe("string");

      // The fleet index is built by a worker that must also run inside the binary.
      const auth = { authorization: `Bearer ${core.body.token}` };
      const added = await postJson(`${server.base}/api/fleet`, { type: "SUV", name: "Binary Escalade", maxPassengers: 5, maxLuggage: 4, lat: 40.65, lon: -73.79, airports: ["JFK"], minimum_rate: 90, hourly_rate: 80 }, auth);
      expect(added.status).toBe(200);
      let found: any[] = [];
      for (let i = 0; i < 50 && found.length === 0; i++) {
        const search = await (await fetch(`${server.base}/api/search/fleet?airports=JFK`, { headers: auth })).json();
        found = search.data.items;
        if (found.length === 0) await Bun.sleep(20);
      }
      expect(found.map((f) => f.slug)).toEqual([added.body.data.slug]);
      // The gazetteer's data file is embedded: a search around a city finds the vehicle (JFK is in New York City).
      const byCity = await (await fetch(`${server.base}/api/search/fleet?city=New%20York&country=US`, { headers: auth })).json();
      expect(byCity.data.items.map((f: { slug: string }) => f.slug)).toEqual([added.body.data.slug]);

      const html = await (await fetch(`${server.base}/docs`)).text();
      expect(html).toContain("swagger-ui");
      const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(ref).not.toMatch(/^(https?:)?\/\//);
        const asset = await fetch(new URL(ref, `${server.base}/docs`));
        expect(asset.status).toBe(200);
        // Swagger UI's bundle and style sheet are large; the page's start-up script is one line; the icon a small SVG.
        expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(ref.endsWith("/start.js") ? 50 : ref.endsWith(".svg") ? 200 : 1000);
      }
      expect(html).not.toMatch(/https?:\/\/(?!localhost)[a-z0-9.-]+\.[a-z]{2,}/i);

      const spec = await (await fetch(`${server.base}/docs/json`)).json();
      expect(spec.openapi).toStartWith("3.");
      expect(spec.info.version).toBe("1.0.0");
      expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/api/token", "/api/company/register", "/Platform.svc/getToken2"]));
      // The Postman collection is converted from that document inside the binary too, and the icon is embedded.
      const postman = await (await fetch(`${server.base}/docs/postman.json`)).json();
      expect(postman.item[0].name).toBe("Core flow");
      expect(postman.variable.find((v: { key: string }) => v.key === "baseUrl").value).toBe(server.base);
      expect((await fetch(`${server.base}/favicon.ico`)).headers.get("content-type")).toBe("image/svg+xml");
      // The console and its basemap are embedded too, and so is the metrics library.
      const consolePage = await fetch(`${server.base}/console`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain("/console/assets/app.js");
      for (const asset of ["app.js", "fleet.js", "style.css"]) expect((await fetch(`${server.base}/console/assets/${asset}`)).status).toBe(200);
      expect(JSON.parse(await (await fetch(`${server.base}/console/assets/world.json`)).text()).path.length).toBeGreaterThan(100_000);
      expect(await (await fetch(`${server.base}/metrics`)).text()).toContain("tripswitch_http_requests_total");
      // Every worker runs inside the binary: no fallback was logged.
      expect(server.stdout() + server.stderr()).not.toMatch(/worker failed|gazetteer warm-up failed|checkpoints unavailable|checkpoint failed|booking writer/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
