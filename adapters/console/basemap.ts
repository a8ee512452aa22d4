import { feature } from "topojson-client";
// Natural Earth 1:50m country shapes, shipped in the world-atlas package and embedded with the code (no tile server).
import countries from "world-atlas/countries-50m.json" with { type: "json" };

type Ring = number[][];

/**
 * The world as one SVG path in an equirectangular frame (x = lon + 180, y = 90 − lat; a 360 × 180 box), coordinates
 * rounded to 0.01° with repeated points dropped: the console draws it under the fleet and the chauffeur.
 */
export function worldPath(): string {
  const world = feature(countries as never, (countries as unknown as { objects: { countries: never } }).objects.countries) as unknown as {
    features: Array<{ geometry: { type: string; coordinates: unknown } | null }>;
  };
  const parts: string[] = [];
  const ring = (points: Ring) => {
    let out = "";
    let last = "";
    let prevLon: number | undefined;
    for (const [lon, lat] of points) {
      const p = `${(lon + 180).toFixed(2)} ${(90 - lat).toFixed(2)}`;
      if (p === last) continue;
      // A ring crossing the antimeridian (Russia, Fiji) or running along a frame edge (Antarctica) would draw a
      // line across the whole map: the path jumps there instead.
      const jump = prevLon === undefined || Math.abs(lon - prevLon) > 180 || (Math.abs(lon) === 180 && Math.abs(prevLon) === 180);
      out += (jump ? "M" : "L") + p;
      last = p;
      prevLon = lon;
    }
    if (out) parts.push(`${out}Z`);
  };
  for (const f of world.features) {
    if (!f.geometry) continue;
    if (f.geometry.type === "Polygon") for (const r of f.geometry.coordinates as Ring[]) ring(r);
    else if (f.geometry.type === "MultiPolygon") for (const poly of f.geometry.coordinates as Ring[][]) for (const r of poly) ring(r);
  }
  return parts.join("");
}
