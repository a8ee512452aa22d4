import shippedXml from "./eurofxref-daily.xml" with { type: "text" };
import { fxTableOf, type FxTable } from "../../domain/fx/fx-table";
import { readEcbFile } from "./ecb-file";

/**
 * The reference table the service ships with (the ECB's daily file of the day named in it, kept here as published),
 * in use until the first `fx import`, as the airport directory ships with its package. Its date tells its age.
 */
export function shippedFxTable(): FxTable {
  // Bun gives a text import its contents (the typings of *.xml say otherwise).
  return fxTableOf(readEcbFile(shippedXml as unknown as string));
}
