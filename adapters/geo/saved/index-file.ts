// The built fleet index saved to a file beside the database, so a restart loads it in a fraction of a
// second instead of reading and sorting every entry again. A file is used only when its stamp equals the
// fleet source's stamp (or one its change log leads on from) and it was written in this format on this
// runtime; anything else is ignored and the index is built.
import { open, rename, rm } from "node:fs/promises";
import KDBush from "kdbush";
import type { FleetStamp } from "../../../domain/fleet/source";
import { packTables, unpackTables, type IndexParts, type TreeParts, type UnlocatedEntry } from "../parts";

/** The file layout's name. */
const MAGIC = "TSFLEET1";

/**
 * The version of what a saved index holds: bump it with any change to the file layout or to what a build
 * produces from the same rows (the parts, the trees, search text normalisation, how rows are read).
 */
export const INDEX_FORMAT_VERSION = 4;

/** What a file must have been written by: this format on this runtime (float results may differ between versions). */
export const INDEX_CODE = `format:${INDEX_FORMAT_VERSION}:bun:${Bun.version}`;

type ArrayKind = "u8" | "u32" | "i32" | "f32" | "f64";
const ARRAY_TYPES = { u8: Uint8Array, u32: Uint32Array, i32: Int32Array, f32: Float32Array, f64: Float64Array } as const;
type AnyArray = Uint8Array | Uint32Array | Int32Array | Float32Array | Float64Array;

interface Header {
  code: string;
  stamp: FleetStamp;
  size: number;
  /** Per tree: its leaf size, and whether its global ids are kdbush's own (then not stored apart). */
  trees: Array<{ nodeSize: number; idsInData: boolean }>;
  tableCounts: number[];
  unlocated: UnlocatedEntry[];
  /** Every array: name, element type, byte offset from the start of the file, element count. */
  arrays: Array<{ name: string; kind: ArrayKind; offset: number; length: number }>;
}

function kindOf(a: AnyArray): ArrayKind {
  if (a instanceof Uint8Array) return "u8";
  if (a instanceof Uint32Array) return "u32";
  if (a instanceof Int32Array) return "i32";
  if (a instanceof Float32Array) return "f32";
  return "f64";
}

const align8 = (n: number) => (n + 7) & ~7;

const idsInData = (t: TreeParts) => t.ids.buffer === t.data;

/**
 * The arrays of the parts by name; the string tables travel as their packed text (UTF-8) and end offsets.
 * The trees' kdbush buffers come last: each is read into a buffer of its own (KDBush.from takes a whole one).
 */
function arraysOf(parts: IndexParts, packedText: Uint8Array, ends: Uint32Array): Array<[string, AnyArray]> {
  const trees = [parts.all, ...parts.typeTrees];
  return [
    ...trees.flatMap((t, i): Array<[string, AnyArray]> => [
      ...(idsInData(t) ? [] : [[`tree${i}.ids`, t.ids] as [string, AnyArray]]),
      [`tree${i}.xyz`, t.xyz],
      [`tree${i}.boxes`, t.boxes],
    ]),
    ["slugBytes", parts.slugBytes],
    ["slugStart", parts.slugStart],
    ["slugTable", parts.slugTable],
    ["textId", parts.textId],
    ["netidId", parts.netidId],
    ["imageId", parts.imageId],
    ["rateId", parts.rateId],
    ["maxPassengers", parts.maxPassengers],
    ["maxLuggage", parts.maxLuggage],
    ["airportsId", parts.airportsId],
    ["tables.text", packedText],
    ["tables.ends", ends],
    ...trees.map((t, i): [string, AnyArray] => [`tree${i}.data`, new Uint8Array(t.data)]),
  ];
}

/**
 * Writes the parts and the stamp they were built from to `path`: into a temporary file, synced, then
 * renamed over the old one, so a crash leaves either the old file or the whole new one. The writes run
 * off this thread; the parts are immutable, so searches go on reading them meanwhile.
 */
export async function saveIndexFile(path: string, parts: IndexParts, stamp: FleetStamp): Promise<void> {
  const packed = packTables(parts);
  const text = new TextEncoder().encode(packed.tables.text);
  const arrays = arraysOf(parts, text, packed.tables.ends);
  const header: Header = {
    code: INDEX_CODE,
    stamp,
    size: parts.size,
    trees: [parts.all, ...parts.typeTrees].map((t) => ({ nodeSize: t.nodeSize, idsInData: idsInData(t) })),
    tableCounts: packed.tables.counts,
    unlocated: parts.unlocated,
    arrays: [],
  };
  // The header's length depends on the offsets it lists: lay the arrays out after an upper bound of it.
  const bound = new TextEncoder().encode(
    JSON.stringify({ ...header, arrays: arrays.map(([name, a]) => ({ name, kind: kindOf(a), offset: Number.MAX_SAFE_INTEGER, length: a.length })) }),
  ).length;
  let offset = align8(12 + bound);
  for (const [name, a] of arrays) {
    header.arrays.push({ name, kind: kindOf(a), offset, length: a.length });
    offset = align8(offset + a.byteLength);
  }
  const head = new TextEncoder().encode(JSON.stringify(header));
  const prefix = new Uint8Array(12 + head.length);
  prefix.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(prefix.buffer).setUint32(8, head.length, true);
  prefix.set(head, 12);

  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, "w");
  try {
    await writeAll(file, prefix, 0);
    for (let i = 0; i < arrays.length; i++) {
      const a = arrays[i][1];
      await writeAll(file, new Uint8Array(a.buffer, a.byteOffset, a.byteLength), header.arrays[i].offset);
    }
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
}

async function writeAll(file: Awaited<ReturnType<typeof open>>, bytes: Uint8Array, position: number): Promise<void> {
  // Bounded: every pass writes at least one byte or throws.
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await file.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) throw new Error("fleet index file: short write");
    done += bytesWritten;
  }
}

/**
 * The parts saved in `path` if it holds an index of exactly `stamp` (or, given a function, of a stamp it
 * accepts), written by this code on this runtime; undefined when there is no such file (missing, older, other
 * code, damaged). Arrays are views into the one buffer read.
 */
export async function loadIndexFile(path: string, stamp: FleetStamp | ((saved: FleetStamp) => boolean)): Promise<IndexParts | undefined> {
  const file = Bun.file(path);
  if (!(await file.exists())) return undefined;
  const size = file.size;
  const start = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  if (start.length < 12 || new TextDecoder().decode(start.subarray(0, 8)) !== MAGIC) return undefined;
  const headLength = new DataView(start.buffer).getUint32(8, true);
  if (12 + headLength > size) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(await file.slice(12, 12 + headLength).arrayBuffer())) as Header;
  } catch {
    return undefined;
  }
  if (header.code !== INDEX_CODE || typeof header.stamp?.n !== "number" || typeof header.stamp.token !== "string" || !Array.isArray(header.arrays))
    return undefined;
  const saved = { n: header.stamp.n, token: header.stamp.token };
  if (typeof stamp === "function" ? !stamp(saved) : saved.n !== stamp.n || saved.token !== stamp.token) return undefined;
  for (const { kind, offset, length } of header.arrays) {
    const Type = ARRAY_TYPES[kind];
    if (!Type || offset % 8 !== 0 || offset < 12 + headLength || offset + length * Type.BYTES_PER_ELEMENT > size) return undefined;
  }
  // Everything before the first kdbush buffer in one read; each kdbush buffer in a read of its own.
  const isData = (name: string) => name.endsWith(".data");
  const restEnd = Math.min(size, ...header.arrays.filter((a) => isData(a.name)).map((a) => a.offset));
  const buffer = await file.slice(0, restEnd).arrayBuffer();
  if (buffer.byteLength !== restEnd) return undefined;
  const arrays = new Map<string, AnyArray>();
  const data = new Map<string, ArrayBuffer>();
  for (const { name, kind, offset, length } of header.arrays) {
    const Type = ARRAY_TYPES[kind];
    if (isData(name)) {
      const own = await file.slice(offset, offset + length).arrayBuffer();
      if (kind !== "u8" || own.byteLength !== length) return undefined;
      data.set(name, own);
    } else if (offset + length * Type.BYTES_PER_ELEMENT > restEnd) return undefined;
    else arrays.set(name, new Type(buffer, offset, length));
  }
  const get = <T extends AnyArray>(name: string) => {
    const a = arrays.get(name);
    if (!a) throw new Error(`fleet index file: ${name} missing`);
    return a as T;
  };
  try {
    const trees: TreeParts[] = header.trees.map((t, i) => {
      const kd = data.get(`tree${i}.data`);
      if (!kd) throw new Error(`fleet index file: tree${i}.data missing`);
      const index = KDBush.from(kd);
      const xyz = get<Float32Array>(`tree${i}.xyz`);
      if (index.numItems * 3 !== xyz.length || !(index.coords instanceof Float64Array))
        throw new Error("fleet index file: a tree does not fit its kdbush data");
      let ids: Uint32Array;
      if (t.idsInData) {
        if (!(index.ids instanceof Uint32Array)) throw new Error("fleet index file: tree ids are not 32-bit");
        ids = index.ids;
      } else ids = get(`tree${i}.ids`);
      return { data: kd, ids, xyz, boxes: get(`tree${i}.boxes`), nodeSize: t.nodeSize };
    });
    const slugBytes = get<Uint8Array>("slugBytes");
    const tables = unpackTables({
      tables: { text: new TextDecoder().decode(get<Uint8Array>("tables.text")), ends: get<Uint32Array>("tables.ends"), counts: header.tableCounts },
    } as Parameters<typeof unpackTables>[0]);
    const parts: IndexParts = {
      size: header.size,
      all: trees[0],
      typeTrees: trees.slice(1),
      slugBytes,
      slugStart: get("slugStart"),
      slugText: new TextDecoder("latin1").decode(slugBytes),
      slugTable: get("slugTable"),
      textId: get("textId"),
      netidId: get("netidId"),
      imageId: get("imageId"),
      rateId: get("rateId"),
      maxPassengers: get("maxPassengers"),
      maxLuggage: get("maxLuggage"),
      airportsId: get("airportsId"),
      unlocated: header.unlocated,
      ...tables,
    };
    return parts;
  } catch {
    return undefined;
  }
}
