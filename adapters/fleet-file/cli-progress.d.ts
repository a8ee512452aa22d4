declare module "cli-progress" {
  export class SingleBar {
    constructor(options: Record<string, unknown>, preset?: unknown);
    start(total: number, startValue: number, payload?: Record<string, unknown>): void;
    update(value: number, payload?: Record<string, unknown>): void;
    setTotal(total: number): void;
    stop(): void;
  }
  export const Presets: { shades_classic: unknown; legacy: unknown };
}
