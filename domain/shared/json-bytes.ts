/**
 * JSON written straight into a reused byte buffer (UTF-8), each value exactly as JSON.stringify writes it:
 * strings with the same escapes (`\"`, `\\`, `\b \f \n \r \t`, `\u00XX` for the other controls, `\udXXX` for a
 * lone surrogate), numbers as `String(n)` (`null` when not finite). Reset it, write an answer, copy `bytes()`
 * out: a hot path then builds no intermediate string.
 */
export class JsonBytes {
  private buf: Buffer;
  /** Bytes written so far. */
  length = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  reset(): this {
    this.length = 0;
    return this;
  }

  /** A copy of the bytes written (the buffer itself is overwritten by the next answer). */
  bytes(): Uint8Array {
    // A copy (Buffer's own slice would be a view of the reused buffer).
    return new Uint8Array(this.buf.subarray(0, this.length));
  }

  /** The bytes written, without copying (valid until the next write or reset). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** Room for `n` more bytes. */
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  /** Text known to be ASCII and JSON already (punctuation, member names with their quotes). */
  ascii(text: string): this {
    this.room(text.length);
    this.length += this.buf.write(text, this.length, "latin1");
    return this;
  }

  /** Bytes that are JSON already (an encoded fragment). */
  raw(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** A number as JSON.stringify writes it. */
  number(n: number): this {
    if (!Number.isFinite(n)) return this.ascii("null");
    // Small whole numbers (counts, capacities) digit by digit; the rest as JavaScript formats them.
    if (Number.isInteger(n) && n >= 0 && n < 1e9 && !Object.is(n, -0)) {
      this.room(10);
      const buf = this.buf;
      if (n === 0) {
        buf[this.length++] = 48;
        return this;
      }
      let digits = 0;
      for (let m = n; m > 0; m = Math.floor(m / 10)) digits++;
      let at = this.length + digits;
      this.length = at;
      for (let m = n; m > 0; m = Math.floor(m / 10)) buf[--at] = 48 + (m % 10);
      return this;
    }
    const text = String(n);
    this.room(text.length);
    this.length += this.buf.write(text, this.length, "latin1");
    return this;
  }

  /** A string (quoted and escaped as JSON.stringify does), or `null`. */
  string(text: string | null): this {
    if (text === null) return this.ascii("null");
    // Most text needs no escape: quoted and encoded natively. The rest is what JSON.stringify writes, encoded.
    if (NEEDS_ESCAPE.test(text)) return this.utf8(JSON.stringify(text));
    this.room(3 * text.length + 2);
    this.buf[this.length++] = 34;
    this.length += this.buf.write(text, this.length, "utf8");
    this.buf[this.length++] = 34;
    return this;
  }

  /** Text as UTF-8 (no lone surrogates: JSON.stringify has escaped them). */
  private utf8(text: string): this {
    this.room(3 * text.length);
    this.length += this.buf.write(text, this.length, "utf8");
    return this;
  }
}

/** What JSON.stringify escapes: `"`, `\`, controls, and surrogates (a lone one is escaped, a pair is not: left to it). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
