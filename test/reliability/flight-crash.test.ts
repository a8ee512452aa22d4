import { flightCrashTest } from "./flight-crash";

for (const kind of ["sqlite", "postgres"] as const) flightCrashTest(kind);
