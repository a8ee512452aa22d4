declare module "newman" {
  export interface NewmanRunSummary {
    run: {
      failures: Array<{ source?: { name?: string }; error?: { message?: string } }>;
      executions: Array<{
        item: { id: string; name: string };
        request: { method: string; url: { getPath(unresolved?: boolean): string }; headers: { toObject(): Record<string, string | undefined> } };
        response?: { code: number; stream: Buffer; headers: { get(name: string): string | undefined } };
      }>;
      stats: { assertions: { total: number; failed: number } };
    };
  }
  export interface NewmanRunOptions {
    collection: unknown;
    folder?: string;
    /** Environment variables (they win over the collection's own). */
    envVar?: Array<{ key: string; value: string }>;
    reporters?: string[];
    timeoutRequest?: number;
    /** The whole run within this many milliseconds, else it stops with an error. */
    timeout?: number;
  }
  function run(options: NewmanRunOptions, callback: (error: Error | null, summary: NewmanRunSummary) => void): void;
  const newman: { run: typeof run };
  export default newman;
}
