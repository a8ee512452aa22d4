/// <reference lib="webworker" />
// A checkpoint worker that starts, then dies shortly after (tests of what a failed checkpointer leaves behind).
export {};
declare const self: Worker;
self.onmessage = () => {
  self.postMessage({ started: true });
  setTimeout(() => {
    throw new Error("checkpointer crashed");
  }, 20);
};
