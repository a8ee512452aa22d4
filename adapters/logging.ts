import pino from "pino";

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout. Credentials never reach a log line: known secret fields are redacted
 * wherever they appear, and request logging records routes and statuses, never bodies or headers.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ["pw", "password", "confirmPassword", "token", "authorization", "*.pw", "*.password", "*.token", "*.authorization"], censor: "[redacted]" },
      serializers: { err: (e: unknown) => (e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : e) },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
