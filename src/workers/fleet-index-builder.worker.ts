/// <reference lib="webworker" />
// Worker entry point: the fleet index build (adapters/geo/build/worker.ts), reading the fleet through the
// SQLite fleet source on a read-only connection of its own.
import { serveIndexBuilds } from "../../adapters/geo/build/worker";
import { openFleetSource } from "../../adapters/sqlite/fleet-source";

serveIndexBuilds(openFleetSource);
