import { MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { packagedFile, partsTransferables, readGeoNamesParts, type GeoNamesParts } from "./geonames-places";

/** The gazetteer Worker's entry point in src/workers/ (listed in `npm run build`). */
export const GAZETTEER_WORKER = "gazetteer.worker.ts";

type Reply = { parts: GeoNamesParts } | { error: string };
interface Request {
  file: string;
  port: MessagePort;
  /** Set to 1 (and notified) once the reply is on `port`: a lookup that cannot wait for the event loop waits on it. */
  done: Int32Array;
}

/** How long the Worker may take before the caller gives up on it (lookups then load on their own thread). */
const WORKER_TIMEOUT_MS = 120_000;

/**
 * The GeoNames file read and indexed in a Worker: `parts` resolves with the columns, transferred, not copied. A
 * lookup that arrives meanwhile (it is synchronous) calls `waitSync`, which blocks only for the rest of the
 * Worker's work and takes the reply off its port, rather than reading the file a second time on this thread.
 */
export class WorkerLoad {
  readonly parts: Promise<GeoNamesParts>;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private settled = false;
  private settle!: (reply: Reply) => void;

  constructor(url: string, file: string = packagedFile()) {
    this.parts = new Promise<GeoNamesParts>((resolve, reject) => {
      this.settle = (reply) => ("parts" in reply ? resolve(reply.parts) : reject(new Error(`gazetteer worker failed: ${reply.error}`)));
    });
    this.parts.catch(() => {}); // the caller handles it; never an unhandled rejection
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(url);
    // Warming must never keep a finished command or test process alive.
    (this.worker as unknown as { unref(): void }).unref();
    (this.port as unknown as { unref?(): void }).unref?.();
    const timer = setTimeout(() => this.finish({ error: "timed out" }), WORKER_TIMEOUT_MS);
    (timer as unknown as { unref?(): void }).unref?.();
    this.port.on("message", (reply: Reply) => {
      clearTimeout(timer);
      this.finish(reply);
    });
    this.worker.onerror = (event) => {
      clearTimeout(timer);
      this.finish({ error: event.message });
    };
    this.worker.postMessage({ file, port: channel.port2, done: this.done } satisfies Request, [channel.port2 as unknown as Transferable]);
  }

  /** Blocks until the Worker's reply is there (at most `timeoutMs`): its columns, or undefined when it failed. */
  waitSync(timeoutMs: number = WORKER_TIMEOUT_MS): GeoNamesParts | undefined {
    if (this.settled) return undefined;
    Atomics.wait(this.done, 0, 0, timeoutMs);
    const reply = receiveMessageOnPort(this.port)?.message as Reply | undefined;
    if (!reply) return undefined;
    this.finish(reply);
    return "parts" in reply ? reply.parts : undefined;
  }

  private finish(reply: Reply): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(reply);
    this.worker.terminate();
    this.port.close();
  }
}

/** Reads and indexes the GeoNames file in a Worker; resolves with the columns. */
export function loadInWorker(url: string, file: string = packagedFile()): Promise<GeoNamesParts> {
  return new WorkerLoad(url, file).parts;
}

/** The Worker's side: answers one request with the file's columns on the request's port. */
export function serveGazetteerLoad(scope: { onmessage: unknown }): void {
  scope.onmessage = (event: MessageEvent<Request>) => {
    const { file, port, done } = event.data;
    try {
      const parts = readGeoNamesParts(file);
      port.postMessage({ parts } satisfies Reply, partsTransferables(parts));
    } catch (err) {
      port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies Reply);
    }
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
  };
}
