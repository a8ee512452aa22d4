import { cascadeCrashTest } from "./cascade-crash";

for (const kind of ["sqlite", "postgres"] as const) cascadeCrashTest(kind);
