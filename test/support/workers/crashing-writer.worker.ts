/// <reference lib="webworker" />
// A booking writer that opens, then dies on its first group (tests of what a failed writer leaves behind).
export {};
declare const self: Worker;
self.onmessage = (event: MessageEvent) => {
  if ("open" in event.data) self.postMessage({ opened: true });
  else throw new Error("writer crashed");
};
