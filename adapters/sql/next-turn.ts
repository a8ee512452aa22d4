/**
 * A group commit's trigger: however many changes ask for a flush in one turn of the event loop, `run` is called once,
 * on the next turn (setImmediate); a request made while it runs, or after, schedules the next call.
 */
export class NextTurn {
  private scheduled = false;

  constructor(private readonly run: () => void) {}

  /** Calls `run` on the next turn, unless a call is already scheduled. */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }
}
