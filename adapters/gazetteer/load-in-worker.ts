import { packagedFile, partsTransferables, readGeoNamesParts, type GeoNamesParts } from "./geonames-places";

/** The gazetteer Worker's entry point in src/workers/ (listed in `npm run build`). */
export const GAZETTEER_WORKER = "gazetteer.worker.ts";

type Reply = { parts: GeoNamesParts } | { error: string };

/** How long the Worker may take before the caller gives up on it (lookups then load on their own thread). */
const WORKER_TIMEOUT_MS = 120_000;

/** Reads and indexes the GeoNames file in a Worker; resolves with the columns, transferred, not copied. */
export function loadInWorker(url: string, file: string = packagedFile()): Promise<GeoNamesParts> {
  return new Promise<GeoNamesParts>((resolve, reject) => {
    const worker = new Worker(url);
    // Warming must never keep a finished command or test process alive.
    (worker as unknown as { unref(): void }).unref();
    const done = (settle: () => void) => {
      clearTimeout(timer);
      worker.terminate();
      settle();
    };
    const timer = setTimeout(() => done(() => reject(new Error("gazetteer worker timed out"))), WORKER_TIMEOUT_MS);
    worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      done(() => ("parts" in reply ? resolve(reply.parts) : reject(new Error(`gazetteer worker failed: ${reply.error}`))));
    };
    worker.onerror = (event) => done(() => reject(new Error(`gazetteer worker failed: ${event.message}`)));
    worker.postMessage({ file });
  });
}

/** The Worker's side: answers one `{file}` with the file's columns. */
export function serveGazetteerLoad(scope: { onmessage: unknown; postMessage(message: unknown, transfer?: Transferable[]): void }): void {
  scope.onmessage = (event: MessageEvent<{ file: string }>) => {
    try {
      const parts = readGeoNamesParts(event.data.file);
      scope.postMessage({ parts } satisfies Reply, partsTransferables(parts));
    } catch (err) {
      scope.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies Reply);
    }
  };
}
