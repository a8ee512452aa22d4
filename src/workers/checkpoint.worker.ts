/// <reference lib="webworker" />
// Worker entry point: background WAL checkpoints (adapters/sqlite/checkpoint-thread.ts).
import { serveCheckpoints } from "../../adapters/sqlite/checkpoint-thread";

serveCheckpoints();
