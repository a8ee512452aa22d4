import pino from "pino";
import type { Logger } from "../logging";
import { JsonBytes } from "../../domain/shared/json-bytes";

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
 * The access log: one line per request, written off the request path. A request only writes its line into a
 * buffer reused turn after turn (fixed fields, no credential among them, so no redaction pass; no string or
 * object made per request); the lines gathered during an event-loop turn reach the logger's destination in one
 * write after it. The lines are what `logger.info(fields, "request")` writes, field for field. Nothing is
 * formatted when the logger's level leaves info out.
 */
export class AccessLog {
  private readonly stream: { write(chunk: string): unknown } | undefined;
  private readonly enabled: boolean;
  private readonly pending = new JsonBytes(16 * 1024);
  private readonly text = new TextDecoder();
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
    const out = this.pending;
    out.ascii('{"level":').number(INFO).ascii(',"time":').number(Date.now());
    if (r.requestId !== undefined) writeValue(out.ascii(',"requestId":'), r.requestId);
    out.ascii(',"method":').string(r.method).ascii(',"route":').string(r.route).ascii(',"path":').string(r.path);
    if (r.company !== undefined) out.ascii(',"company":').string(r.company);
    out.ascii(',"status":').number(r.status);
    if (r.ms !== undefined) out.ascii(',"ms":').number(r.ms);
    out.ascii(',"msg":"request"}\n');
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes the gathered lines now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || !this.stream) return;
    const lines = this.text.decode(this.pending.view());
    this.pending.reset();
    this.stream.write(lines);
  }
}

/** A value as JSON.stringify writes it (request ids are strings; anything else is rare). */
function writeValue(out: JsonBytes, value: unknown): void {
  if (typeof value === "string") out.string(value);
  else if (typeof value === "number") out.number(value);
  else out.raw(new TextEncoder().encode(JSON.stringify(value) ?? "null"));
}
