import { bigint } from "drizzle-orm/pg-core";

/** A Unix time (seconds or milliseconds, as the SQLite column holds it): 64-bit, read as a JS number. */
export const time = (name: string) => bigint(name, { mode: "number" });
