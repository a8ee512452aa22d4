/// <reference lib="webworker" />
// The fleet index build worker, except that a step that sends its all-types tree ahead (`typesLater`) fails
// right after sending it, before the per-type trees (tests of a first build whose type trees never come).
import "../../../src/workers/fleet-index-builder.worker";
declare const self: Worker;
const post = self.postMessage.bind(self);
self.postMessage = ((message: { partial?: true }, transfer?: Transferable[]) => {
  post(message, transfer ?? []);
  if (message.partial) throw new Error("type trees failed");
}) as typeof self.postMessage;
