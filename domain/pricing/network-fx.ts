import type { CurrencyDirectory } from "../currency";
import { FeeConverter } from "../fx/convert";
import { FX_BASE, FX_STALE_AFTER_DAYS, isStale, type FxTable } from "../fx/fx-table";
import type { TripWarning } from "../trips/warnings";
import type { NetworkQuoteOption, PricedVehicle } from "./network-quote";

/** What the network quote converts with: the FX table in use (the last import, else the shipped one). */
export interface NetworkFx {
  table(): FxTable;
  currencies: CurrencyDirectory;
}

/**
 * A network quote's currencies (docs/fx.md#what-a-network-quote-shows): every option is kept in its own currency and ranked by its fee
 * converted into the target (the request's `currency`, else the caller's `displayCurrency`; without either, EUR
 * ranks them and nothing is shown converted). An option whose currency has no rate ranks after the others.
 */
export class NetworkConversion {
  private readonly converter: FeeConverter;

  constructor(
    private readonly fx: NetworkFx,
    /** The currency options are shown converted into; undefined: none shown. */
    readonly target: string | undefined,
  ) {
    this.converter = new FeeConverter(fx.table(), target ?? FX_BASE, fx.currencies);
  }

  /** What rankCircle ranks by: a fee in the target's minor units. */
  get ranker(): { units(minorUnits: number, currency: string): number | undefined } {
    return this.converter;
  }

  /** The options (built from `ranked`, in order) each with `converted` when a target is set and its currency has a rate. */
  convert(options: NetworkQuoteOption[], ranked: readonly PricedVehicle[]): NetworkQuoteOption[] {
    if (this.target === undefined) return options;
    return options.map((o, k) => {
      const converted = this.converter.convert(ranked[k].minorUnits, o.currency);
      return converted ? { ...o, converted } : o;
    });
  }

  /**
   * NO_FX_RATE naming the currencies the table has no rate for (their options rank last), and FX_RATES_STALE when
   * a conversion used rates older than FX_STALE_AFTER_DAYS.
   */
  warnings(options: readonly NetworkQuoteOption[], now: number): TripWarning[] {
    const target = this.converter.target;
    const missing = [...new Set(options.filter((o) => this.converter.rateOf(o.currency) === undefined).map((o) => o.currency))].sort();
    const warnings: TripWarning[] = [];
    if (missing.length > 0)
      warnings.push({
        code: "NO_FX_RATE",
        message:
          `The FX table has no rate for ${missing.join(", ")}: ` +
          `${missing.length === 1 ? "its" : "their"} options are kept in their own currency, after the others`,
        count: options.filter((o) => missing.includes(o.currency)).length,
        currencies: missing,
      });
    // Rates were used when an option was shown converted, or (without a target) options of several currencies were compared.
    const rated = new Set(options.filter((o) => !missing.includes(o.currency)).map((o) => o.currency));
    const converting = this.target !== undefined ? [...rated].some((c) => c !== target) : rated.size > 1;
    const table = this.converter.table;
    if (converting && isStale(table, now))
      warnings.push({
        code: "FX_RATES_STALE",
        message: `The FX rates are of ${table.date}, more than ${FX_STALE_AFTER_DAYS} days old: import the ECB's daily file (fx import)`,
        rateDate: table.date,
      });
    return warnings;
  }
}
