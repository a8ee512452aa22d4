import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Company tags kept before the map starts over. */
const TAG_CACHE_LIMIT = 10_000;
const OPAQUE_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * The event ids streams send: opaque (docs/events.md), so that one company's ids tell nothing of the others'
 * activity. The log's position (one sequence for every company) and an 8-byte tag of the company are one AES-128
 * block, sent as 22 base64url characters: ids of one company look random and cannot be compared, counted or moved
 * to another company (a tag that does not match decodes to nothing). Every instance derives the same key from the
 * service's secret (JWT_SECRET), so a stream resumes on any of them; a new secret makes old ids unknown (`reset`).
 */
export class EventIdCodec {
  private readonly key: Buffer;
  private readonly tagKey: Buffer;
  private readonly tags = new Map<string, Buffer>();

  constructor(secret: string) {
    const derived = createHash("sha256").update("tripswitch live event ids\0").update(secret).digest();
    this.key = derived.subarray(0, 16);
    this.tagKey = derived.subarray(16);
  }

  /** The id a stream of `netid` (lower-case) sends for the log position `position`. */
  encode(netid: string, position: number): string {
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(BigInt(Math.max(0, Math.trunc(position))));
    this.tag(netid).copy(block, 8);
    const cipher = createCipheriv("aes-128-ecb", this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString("base64url");
  }

  /** The log position behind an id this service gave `netid`; undefined for anything else. */
  decode(netid: string, id: string): number | undefined {
    const text = id.trim();
    if (!OPAQUE_ID.test(text)) return undefined;
    const bytes = Buffer.from(text, "base64url");
    if (bytes.length !== 16) return undefined;
    const decipher = createDecipheriv("aes-128-ecb", this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(bytes), decipher.final()]);
    if (!timingSafeEqual(block.subarray(8), this.tag(netid))) return undefined;
    const position = block.readBigUInt64BE(0);
    return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
  }

  private tag(netid: string): Buffer {
    let tag = this.tags.get(netid);
    if (!tag) {
      if (this.tags.size >= TAG_CACHE_LIMIT) this.tags.clear();
      tag = createHmac("sha256", this.tagKey).update(netid).digest().subarray(0, 8);
      this.tags.set(netid, tag);
    }
    return tag;
  }
}
