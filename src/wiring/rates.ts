import { shippedFxTable } from "../../adapters/fx/shipped";
import type { FxDeps } from "../../domain/usecases/fx-rates";
import type { Wiring } from "./context";
import type { ReferenceData } from "./reference";

/** Prices: the providers' rate cards and the FX table network quotes convert with. */
export function wireRates({ storage, clock }: Wiring, { airports, currencies }: ReferenceData) {
  const fx: FxDeps = { store: storage.fxRates, shipped: shippedFxTable(), clock };
  return {
    /** Providers' rate cards (GET|PUT|DELETE /api/company/rates, CLI rates import). */
    rates: { rateCards: storage.rateCards, fleet: storage.fleet, currencies, airports, clock, companies: storage.companies },
    /** The FX table (GET /api/fx, CLI fx import, the network quote's conversion). */
    fx,
  };
}
