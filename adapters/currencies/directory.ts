import currencyCodes from "currency-codes";
import countryToCurrency from "country-to-currency";
import type { CurrencyDirectory } from "../../domain/currency";

/**
 * ISO 4217 from maintained packages shipped with the service: minor units from `currency-codes` (the ISO 4217
 * table), each country's currency from `country-to-currency`. No network at run time.
 */
export class PackagedCurrencyDirectory implements CurrencyDirectory {
  private readonly digits = new Map<string, number>();

  constructor() {
    for (const c of currencyCodes.data) if (typeof c.digits === "number") this.digits.set(c.code, c.digits);
  }

  minorUnit(code: string): number | undefined {
    return this.digits.get(code.trim().toUpperCase());
  }

  ofCountry(country: string): string | undefined {
    const code = (countryToCurrency as Record<string, string>)[country.trim().toUpperCase()];
    return code && this.digits.has(code) ? code : undefined;
  }
}
