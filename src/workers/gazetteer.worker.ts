/// <reference lib="webworker" />
// Worker entry point: reads and indexes the GeoNames places off the event loop (adapters/gazetteer/load-in-worker.ts).
import { serveGazetteerLoad } from "../../adapters/gazetteer/load-in-worker";

declare const self: Worker;

serveGazetteerLoad(self as unknown as Parameters<typeof serveGazetteerLoad>[0]);
