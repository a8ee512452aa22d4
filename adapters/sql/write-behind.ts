/**
 * Rows a store writes behind its callers, in one batch at most every `flushMs`: held in order until taken for a
 * write, and put back (the oldest dropped beyond `max`) when the database refuses it, to be tried again later.
 * `flush` is the store's write of what `take` hands over.
 */
export class WriteBehind<T> {
  private held: T[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly flush: () => void,
    private readonly flushMs: number,
    private readonly max: number,
  ) {}

  /** The rows held now, oldest first. */
  get rows(): readonly T[] {
    return this.held;
  }

  /** Holds rows; a write is due `flushMs` after the first one held. */
  add(...rows: T[]): void {
    this.held.push(...rows);
    this.timer ??= setTimeout(this.flush, this.flushMs);
  }

  /** The rows to write now (none when nothing is held), held no longer; the due write is called off. */
  take(): T[] {
    this.cancel();
    const batch = this.held;
    this.held = [];
    return batch;
  }

  /** Holds a batch the database refused again, before the rows held since, and tries again in `retryMs`. */
  putBack(batch: T[], retryMs: number): void {
    this.held = batch.concat(this.held).slice(-this.max);
    this.timer ??= setTimeout(this.flush, retryMs);
  }

  /** Calls off the due write. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
