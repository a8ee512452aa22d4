// The version of package.json (embedded by `bun build --compile`, so the binary knows its own).
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
