// A process that logs through createLogger on stdout, for test/adapters/logging.test.ts. Modes:
//   linger <n>: logs n info lines, stays alive for 2.5 s, then says "leaving" on stderr and exits;
//   exit <n>:   logs n info lines, then exits at once with code 3 (buffered lines must still be written);
//   warn <n>:   logs n info lines and a warning, then blocks its event loop for 2.5 s and says "unblocked" on stderr.
import { createLogger } from "../../adapters/logging";

const [mode, count] = [process.argv[2], Number(process.argv[3] ?? 1)];
const logger = createLogger("info");
for (let i = 0; i < count; i++) logger.info({ i, pad: "x".repeat(100) }, "line");
if (mode === "linger") setTimeout(() => console.error("leaving"), 2_500);
else if (mode === "exit") process.exit(3);
else if (mode === "warn") {
  logger.warn("attention");
  setTimeout(() => {
    const until = Date.now() + 2_500;
    while (Date.now() < until);
    console.error("unblocked");
  }, 50);
}
