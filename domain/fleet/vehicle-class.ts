/**
 * Vehicle classes by size, smallest first (docs/terms.md#each-provider-its-own-terms): what
 * `fallback.sameClassOrBetter` compares. A fleet's type codes are free (letters, digits and _), so only the common
 * codes have a class; any other code is a class of its own, the same only as itself.
 */
const CLASSES: ReadonlyArray<readonly string[]> = [
  ["SEDAN", "ECONOMY", "STANDARD", "COMPACT"],
  ["EXECUTIVE", "EXECUTIVE_SEDAN", "LUXURY_SEDAN", "FIRST_CLASS"],
  ["SUV", "EXECUTIVE_SUV"],
  ["VAN", "VAN_MINI", "MINIVAN", "MPV"],
  ["LIMO", "LIMOUSINE", "STRETCH", "STRETCH_LIMO"],
  ["SPRINTER", "VAN_LARGE"],
  ["MINIBUS", "MINI_COACH"],
  ["BUS", "COACH", "MOTORCOACH"],
];

const RANK: ReadonlyMap<string, number> = new Map(CLASSES.flatMap((codes, rank) => codes.map((c) => [c, rank] as const)));

/** The class rank of a vehicle type code (0 the smallest), or undefined for a code with no listed class. */
export function vehicleClassRank(type: string | undefined): number | undefined {
  return type === undefined ? undefined : RANK.get(type.trim().toUpperCase());
}

/**
 * Whether a vehicle of type `offered` is of the class of `booked` or a larger one: both listed and `offered` ranks at
 * least as high, or the two codes are the same. A booking whose type is unknown keeps it (nothing to compare with).
 */
export function sameClassOrBetter(booked: string | undefined, offered: string | undefined): boolean {
  if (booked === undefined || booked.trim() === "") return true;
  if (offered !== undefined && offered.trim().toUpperCase() === booked.trim().toUpperCase()) return true;
  const a = vehicleClassRank(booked);
  const b = vehicleClassRank(offered);
  return a !== undefined && b !== undefined && b >= a;
}
