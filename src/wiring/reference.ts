import { PackagedAirportDirectory } from "../../adapters/airports/directory";
import { PackagedTimeZones } from "../../adapters/airports/time-zones";
import { PackagedCurrencyDirectory } from "../../adapters/currencies/directory";
import { PackagedGazetteer } from "../../adapters/gazetteer/cities";

let sharedAirports: PackagedAirportDirectory | undefined;
/** The airport directory is read-only reference data: load it once per process. */
function airportDirectory(): PackagedAirportDirectory {
  return (sharedAirports ??= new PackagedAirportDirectory());
}

/** The packaged reference data features share: airports, currencies, places (the gazetteer) and time zones. */
export function wireReferenceData() {
  return {
    airports: airportDirectory(),
    // ISO 4217 minor units: quotes, provider updates and partner replies write amounts in them.
    currencies: new PackagedCurrencyDirectory(),
    gazetteer: new PackagedGazetteer(),
    timeZones: new PackagedTimeZones(),
  };
}

export type ReferenceData = ReturnType<typeof wireReferenceData>;
