import { open } from "node:fs/promises";

/** A file a command refused to read: missing, or larger than the command takes. The message says which. */
export class BoundedFileError extends Error {}

/** Bytes read at a time. */
const CHUNK = 64 * 1024;

/**
 * The bytes of the file at `path`, read in chunks and refused as soon as they pass `maxBytes`: a regular file larger
 * than that by its size before anything is read, and anything else (a pipe, a device, a file still growing) the
 * moment it passes it. Never more than `maxBytes` + one chunk is held. `what` names the file's kind in the message
 * ("a rate card").
 */
export async function readBounded(path: string, maxBytes: number, what: string): Promise<Uint8Array> {
  const tooLarge = (size?: number) =>
    new BoundedFileError(`${path}: ${size ?? `more than ${maxBytes}`} bytes; ${what} takes at most ${maxBytes} bytes`);
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    throw new BoundedFileError(`no file ${path}`);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new BoundedFileError(`${path} is a directory, not a file`);
    if (stat.isFile() && stat.size > maxBytes) throw tooLarge(stat.size);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const buffer = new Uint8Array(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > maxBytes) throw tooLarge();
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, size);
  } finally {
    await handle.close();
  }
}
