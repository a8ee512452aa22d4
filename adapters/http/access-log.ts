import pino from "pino";
import type { Logger } from "../logging";

/** One answered request, as its access line records it. */
export interface AccessRecord {
  requestId: unknown;
  method: string;
  route: string;
  path: string;
  company: string | undefined;
  status: number;
  ms: number | undefined;
}

/** pino's number for "info". */
const INFO = 30;

/**
 * The access log: one line per request, written off the request path. A request only formats its line
 * (fixed fields, no credential among them, so no redaction pass); the lines gathered during an event-loop turn
 * reach the logger's destination in one write after it. The lines are what `logger.info(fields, "request")`
 * writes, field for field. Nothing is formatted when the logger's level leaves info out.
 */
export class AccessLog {
  private readonly stream: { write(chunk: string): unknown } | undefined;
  private readonly enabled: boolean;
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly logger: Logger) {
    this.enabled = logger.isLevelEnabled("info");
    this.stream = (logger as unknown as Record<symbol, { write(chunk: string): unknown } | undefined>)[pino.symbols.streamSym];
  }

  record(r: AccessRecord): void {
    if (!this.enabled) return;
    if (!this.stream) {
      this.logger.info(r, "request");
      return;
    }
    let line = `{"level":${INFO},"time":${Date.now()}`;
    if (r.requestId !== undefined) line += `,"requestId":${JSON.stringify(r.requestId)}`;
    line += `,"method":${JSON.stringify(r.method)},"route":${JSON.stringify(r.route)},"path":${JSON.stringify(r.path)}`;
    if (r.company !== undefined) line += `,"company":${JSON.stringify(r.company)}`;
    line += `,"status":${r.status}`;
    if (r.ms !== undefined) line += `,"ms":${r.ms}`;
    this.pending.push(`${line},"msg":"request"}\n`);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes the gathered lines now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || !this.stream) return;
    const lines = this.pending.join("");
    this.pending = [];
    this.stream.write(lines);
  }
}
