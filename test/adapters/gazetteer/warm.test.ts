import { describe, expect, test } from "bun:test";
import { PackagedGazetteer } from "../../../adapters/gazetteer/cities";
import { GeoNamesPlaces, loadGeoNamesPlaces, normalName, packagedFile } from "../../../adapters/gazetteer/geonames-places";
import { GAZETTEER_WORKER, loadInWorker } from "../../../adapters/gazetteer/load-in-worker";
import { workerEntry } from "../../../adapters/runtime";
import { BUN, ROOT } from "../../support/process";

/** The gazetteer warmed in a Worker (docs/places.md): the same places, found the same way, as loaded in-process. */
describe("gazetteer warm-up in a Worker", () => {
  test("the Worker's columns equal the in-process ones, and lookups answer the same", async () => {
    const fromWorker = new GeoNamesPlaces(await loadInWorker(workerEntry(GAZETTEER_WORKER)));
    const local = loadGeoNamesPlaces();
    expect(fromWorker.count).toBe(local.count);
    expect(fromWorker.count).toBeGreaterThan(150_000);
    for (let i = 0; i < local.count; i += 997) {
      expect([fromWorker.nameOf(i), fromWorker.countryOf(i), fromWorker.divisionOf(i)]).toEqual([local.nameOf(i), local.countryOf(i), local.divisionOf(i)]);
      expect([fromWorker.lat[i], fromWorker.lon[i], fromWorker.population[i]]).toEqual([local.lat[i], local.lon[i], local.population[i]]);
      expect(fromWorker.idsOf(normalName(local.nameOf(i)))).toEqual(local.idsOf(normalName(local.nameOf(i))));
    }
    for (const name of ["New York", "München", "Köln", "Springfield", "Paris", "東京", "zzzz not a place"]) {
      expect(fromWorker.idsOf(normalName(name))).toEqual(local.idsOf(normalName(name)));
    }
    const viaWorker = new PackagedGazetteer(() => fromWorker);
    const viaThread = new PackagedGazetteer(() => local);
    for (const q of [{ city: "New York" }, { city: "Springfield", state: "IL", country: "US" }, { city: "Munich", country: "Germany" }, { city: "Boston" }]) {
      expect(viaWorker.city(q)).toEqual(viaThread.city(q));
    }
    expect(viaWorker.city({ city: "New York" })).toMatchObject({ name: "New York City", state: "NY", country: "US" });
  }, 120_000);

  test("warmInBackground resolves once the places are there; a Worker that cannot start rejects (lookups then load in-process)", async () => {
    await expect(loadInWorker("file:///nonexistent/gazetteer.worker.ts")).rejects.toThrow(/gazetteer worker/);
    const g = new PackagedGazetteer();
    await g.warmInBackground();
    expect(g.city({ city: "München" })).toMatchObject({ name: "Munich", country: "DE" });
    expect(packagedFile()).toContain("cities500");
  }, 120_000);
  test("a lookup while the Worker reads waits for its reply and answers the same", async () => {
    // A fresh process: this one has the places already.
    const script = `
      import * as places from "./adapters/gazetteer/geonames-places";
      import { PackagedGazetteer } from "./adapters/gazetteer/cities";
      const g = new PackagedGazetteer();
      const warm = g.warmInBackground();
      const place = g.city({ city: "New York" });
      await warm;
      console.log(JSON.stringify({ name: place?.name, state: place?.state, loaded: places.loadedGeoNamesPlaces() !== undefined }));`;
    const proc = Bun.spawn([BUN, "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out.trim())).toEqual({ name: "New York City", state: "NY", loaded: true });
  }, 120_000);
});
