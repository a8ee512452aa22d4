// The built fleet index saved to a file beside the database, so a restart loads it in a fraction of a
// second instead of reading and sorting every entry again. A file is used only when its stamp equals the
// database's fleet stamp (see fleet_generation: triggers change it with every entry written) and it was
// written by the same index code on the same runtime; anything else is ignored and the index is built.
import { readFileSync, statSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { COMPILED } from "../runtime";
import { packTables, unpackTables, type IndexParts, type TreeParts, type UnlocatedEntry } from "./index-parts";
/** The database's fleet stamp (fleet_generation's row). */
export interface FleetStamp {
  n: number;
  token: string;
}

/** The file layout's name and version: change it with the layout. */
const MAGIC = "TSFLEET1";

/**
 * Which code and runtime built a file. From source: a hash of the modules that decide what a build
 * produces, and the Bun version. In the compiled binary (whose modules are not files): the binary's size
 * and modification time. Any change to either invalidates saved files.
 */
export const INDEX_CODE = indexCode();

function indexCode(): string {
  if (COMPILED) {
    const binary = statSync(process.execPath);
    return `binary:${binary.size}:${binary.mtimeMs}:${Bun.version}`;
  }
  const sources = ["./index-parts.ts", "./kd-sort.ts", "./index-file.ts", "../../domain/fleet/text.ts", "../sqlite/fleet-repository.ts"].map((path) => readFileSync(new URL(path, import.meta.url), "utf8"));
  return `source:${Bun.hash([...sources, Bun.version].join("\u0000")).toString(16)}`;
}

type ArrayKind = "u8" | "u32" | "i32" | "f32" | "f64";
const ARRAY_TYPES = { u8: Uint8Array, u32: Uint32Array, i32: Int32Array, f32: Float32Array, f64: Float64Array } as const;
type AnyArray = Uint8Array | Uint32Array | Int32Array | Float32Array | Float64Array;

interface Header {
  code: string;
  stamp: FleetStamp;
  size: number;
  trees: Array<{ nodeSize: number }>;
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

/** The arrays of the parts by name; the string tables travel as their packed text (UTF-8) and end offsets. */
function arraysOf(parts: IndexParts, packedText: Uint8Array, ends: Uint32Array): Array<[string, AnyArray]> {
  const trees = [parts.all, ...parts.typeTrees];
  return [
    ...trees.flatMap((t, i): Array<[string, AnyArray]> => [
      [`tree${i}.ids`, t.ids],
      [`tree${i}.xyz`, t.xyz],
      [`tree${i}.boxes`, t.boxes],
    ]),
    ["lat", parts.lat],
    ["lon", parts.lon],
    ["slugBytes", parts.slugBytes],
    ["slugStart", parts.slugStart],
    ["slugTable", parts.slugTable],
    ["textId", parts.textId],
    ["netidId", parts.netidId],
    ["imageId", parts.imageId],
    ["rateId", parts.rateId],
    ["maxPassengers", parts.maxPassengers],
    ["maxLuggage", parts.maxLuggage],
    ["tables.text", packedText],
    ["tables.ends", ends],
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
    trees: [parts.all, ...parts.typeTrees].map((t) => ({ nodeSize: t.nodeSize })),
    tableCounts: packed.tables.counts,
    unlocated: parts.unlocated,
    arrays: [],
  };
  // The header's length depends on the offsets it lists: lay the arrays out after an upper bound of it.
  const bound = new TextEncoder().encode(JSON.stringify({ ...header, arrays: arrays.map(([name, a]) => ({ name, kind: kindOf(a), offset: Number.MAX_SAFE_INTEGER, length: a.length })) })).length;
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
  for (let done = 0; done < bytes.length; ) {
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
  const buffer = await file.arrayBuffer();
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return undefined;
  const headLength = new DataView(buffer).getUint32(8, true);
  if (12 + headLength > bytes.length) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headLength))) as Header;
  } catch {
    return undefined;
  }
  if (header.code !== INDEX_CODE || typeof header.stamp?.n !== "number" || typeof header.stamp.token !== "string") return undefined;
  const saved = { n: header.stamp.n, token: header.stamp.token };
  if (typeof stamp === "function" ? !stamp(saved) : saved.n !== stamp.n || saved.token !== stamp.token) return undefined;
  const arrays = new Map<string, AnyArray>();
  for (const { name, kind, offset, length } of header.arrays) {
    const Type = ARRAY_TYPES[kind];
    if (!Type || offset % 8 !== 0 || offset < 12 + headLength || offset + length * Type.BYTES_PER_ELEMENT > bytes.length) return undefined;
    arrays.set(name, new Type(buffer, offset, length));
  }
  const get = <T extends AnyArray>(name: string) => {
    const a = arrays.get(name);
    if (!a) throw new Error(`fleet index file: ${name} missing`);
    return a as T;
  };
  try {
    const trees: TreeParts[] = header.trees.map((t, i) => ({ ids: get(`tree${i}.ids`), xyz: get(`tree${i}.xyz`), boxes: get(`tree${i}.boxes`), nodeSize: t.nodeSize }));
    const slugBytes = get<Uint8Array>("slugBytes");
    const tables = unpackTables({
      tables: { text: new TextDecoder().decode(get<Uint8Array>("tables.text")), ends: get<Uint32Array>("tables.ends"), counts: header.tableCounts },
    } as Parameters<typeof unpackTables>[0]);
    const parts: IndexParts = {
      size: header.size,
      all: trees[0],
      typeTrees: trees.slice(1),
      lat: get("lat"),
      lon: get("lon"),
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
      unlocated: header.unlocated,
      ...tables,
    };
    return parts;
  } catch {
    return undefined;
  }
}
