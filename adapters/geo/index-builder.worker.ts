/// <reference lib="webworker" />
// Builds the fleet index off the main thread; the kd-tree buffer and type ids are transferred, not copied.
import { buildIndexParts, type IndexInput } from "./index-parts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ id: number; input: IndexInput }>) => {
  const { id, input } = event.data;
  try {
    const parts = buildIndexParts(input);
    self.postMessage({ id, parts }, [parts.kd, parts.typeIds.buffer]);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
