import type { PgDb } from "./db";

/** What a LISTEN loop does: at a notification, at each (re)subscription, and at each poll. */
export interface ListenHandlers {
  notified: () => void;
  /** Initially and after every reconnect (Bun's client subscribes again by itself): what was missed is unknown. */
  subscribed: () => void;
  /** The safety net under the notifications: a change whose notification was lost is seen here. */
  poll: () => void;
}

/**
 * LISTENs on `channel` and polls every `intervalMs` (unref'd: it never keeps the process alive). A LISTEN that
 * fails goes to `onError` and the poll goes on without notifications. `stop()` ends both.
 */
export function listenWithPoll(
  db: PgDb,
  channel: string,
  on: ListenHandlers,
  onError: (error: unknown) => void,
  intervalMs: number,
): { stop(): Promise<void> } {
  const timer = setInterval(on.poll, intervalMs);
  (timer as unknown as { unref?: () => void }).unref?.();
  let subscription: { unlisten(): Promise<void> } | undefined;
  const listening = db.$client.listen(channel, on.notified, on.subscribed).then((s) => {
    subscription = s;
  }, onError);
  return {
    async stop() {
      clearInterval(timer);
      await listening;
      await subscription?.unlisten().catch(onError);
    },
  };
}
