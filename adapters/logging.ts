import pino from "pino";

export type Logger = pino.Logger;

/** Bytes of log lines gathered before a write to stdout: at thousands of requests a second, each write is a noticeable share of a request. */
const STDOUT_BUFFER_BYTES = 32 * 1024;
/** The largest single write (sonic-boom wants it above the buffer). */
const STDOUT_MAX_WRITE = 64 * 1024;
/** A line waits at most this long for the buffer to fill. */
const STDOUT_FLUSH_MS = 200;
/** pino's level number of "warn": lines at this level or above are written at once. */
const WARN = 40;

/**
 * Structured JSON logs on stdout. Credentials never reach a log line: known secret fields are redacted
 * wherever they appear, and request logging records routes and statuses, never bodies or headers.
 *
 * On stdout, lines are gathered into writes of ~32 KB: a line reaches stdout within 200 ms, a warning or an
 * error at once (with any lines before it), and everything still buffered when the process exits.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const stdout = destination || level === "silent" ? undefined : bufferedStdout();
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ["pw", "password", "confirmPassword", "token", "authorization", "*.pw", "*.password", "*.token", "*.authorization"],
        censor: "[redacted]",
      },
      serializers: { err: (e: unknown) => (e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : e) },
      // Only when set: pino's defaults are replaced, not merged, by a `hooks: undefined`.
      ...(stdout && {
        hooks: {
          logMethod(args, method, lineLevel) {
            method.apply(this, args);
            if (lineLevel >= WARN) stdout.flush();
          },
        },
      }),
    },
    destination ?? stdout ?? { write() {} },
  );
}

function bufferedStdout(): pino.DestinationStream & { flush(): void } {
  // pino flushes what is left when the process exits (its own exit handler for asynchronous destinations).
  return pino.destination({ fd: 1, sync: false, minLength: STDOUT_BUFFER_BYTES, maxWrite: STDOUT_MAX_WRITE, periodicFlush: STDOUT_FLUSH_MS });
}
