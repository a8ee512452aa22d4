declare module "newman" {
  export interface NewmanRunSummary {
    run: {
      failures: Array<{ source?: { name?: string }; error?: { message?: string } }>;
      executions: Array<{ item: { id: string; name: string }; request: { headers: { toObject(): Record<string, string | undefined> } }; response?: { code: number; stream: Buffer } }>;
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
  }
  function run(options: NewmanRunOptions, callback: (error: Error | null, summary: NewmanRunSummary) => void): void;
  const newman: { run: typeof run };
  export default newman;
}
