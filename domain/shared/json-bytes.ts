const HEX = "0123456789abcdef";

/**
 * JSON written straight into a reused byte buffer (UTF-8), each value exactly as JSON.stringify writes it:
 * strings with the same escapes (`\"`, `\\`, `\b \f \n \r \t`, `\u00XX` for the other controls, `\udXXX` for a
 * lone surrogate), numbers as `String(n)` (`null` when not finite). Reset it, write an answer, copy `bytes()`
 * out: a hot path then builds no intermediate string.
 */
export class JsonBytes {
  private buf: Uint8Array;
  /** Bytes written so far. */
  length = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = new Uint8Array(initialBytes);
  }

  reset(): this {
    this.length = 0;
    return this;
  }

  /** A copy of the bytes written (the buffer itself is overwritten by the next answer). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
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
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  /** Text known to be ASCII and JSON already (punctuation, member names with their quotes). */
  ascii(text: string): this {
    const n = text.length;
    this.room(n);
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < n; i++) buf[at++] = text.charCodeAt(i);
    this.length = at;
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
    return this.ascii(String(n));
  }

  /** A string (quoted and escaped as JSON.stringify does), or `null`. */
  string(text: string | null): this {
    if (text === null) return this.ascii("null");
    const n = text.length;
    // At most 6 bytes per UTF-16 unit (`\u001f`, or a lone surrogate's `\udXXX`), and the quotes.
    this.room(6 * n + 2);
    const buf = this.buf;
    let at = this.length;
    buf[at++] = 34;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 34 && c !== 92) buf[at++] = c;
        else at = escapeAscii(buf, at, c);
      } else if (c < 0x800) {
        buf[at++] = 0xc0 | (c >> 6);
        buf[at++] = 0x80 | (c & 63);
      } else if (c < 0xd800 || c > 0xdfff) {
        buf[at++] = 0xe0 | (c >> 12);
        buf[at++] = 0x80 | ((c >> 6) & 63);
        buf[at++] = 0x80 | (c & 63);
      } else {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[at++] = 0xf0 | (cp >> 18);
          buf[at++] = 0x80 | ((cp >> 12) & 63);
          buf[at++] = 0x80 | ((cp >> 6) & 63);
          buf[at++] = 0x80 | (cp & 63);
          i++;
        } else at = escapeUnit(buf, at, c);
      }
    }
    buf[at++] = 34;
    this.length = at;
    return this;
  }
}

/** `"`, `\` or a control character, escaped as JSON.stringify does. */
function escapeAscii(buf: Uint8Array, at: number, c: number): number {
  buf[at++] = 92;
  switch (c) {
    case 34:
      buf[at++] = 34;
      return at;
    case 92:
      buf[at++] = 92;
      return at;
    case 8:
      buf[at++] = 98;
      return at;
    case 12:
      buf[at++] = 102;
      return at;
    case 10:
      buf[at++] = 110;
      return at;
    case 13:
      buf[at++] = 114;
      return at;
    case 9:
      buf[at++] = 116;
      return at;
  }
  return escapeUnit(buf, at - 1, c);
}

/** `\uXXXX` in lower-case hex. */
function escapeUnit(buf: Uint8Array, at: number, c: number): number {
  buf[at++] = 92;
  buf[at++] = 117;
  buf[at++] = HEX.charCodeAt((c >> 12) & 15);
  buf[at++] = HEX.charCodeAt((c >> 8) & 15);
  buf[at++] = HEX.charCodeAt((c >> 4) & 15);
  buf[at++] = HEX.charCodeAt(c & 15);
  return at;
}
