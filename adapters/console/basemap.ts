import { feature } from "topojson-client";
// Natural Earth 1:50m country shapes, shipped in the world-atlas package and embedded with the code (no tile server).
import countries from "world-atlas/countries-50m.json" with { type: "json" };
// Natural Earth 1:10m land, as text, parsed on first use only (3 MB): the outline under a city-scale map, where the
// 1:50m coastline puts Manhattan in the river.
import land10m from "world-atlas/land-10m.json" with { type: "text" };

type Ring = number[][];

/**
 * The world as one SVG path in an equirectangular frame (x = lon + 180, y = 90 − lat; a 360 × 180 box), coordinates
 * rounded to 0.01° with repeated points dropped: the console draws it under the fleet and the chauffeur.
 */
export function worldPath(): string {
  return outlinePath(countries, "countries", 2);
}

/**
 * The land of the world at 1:10m, coordinates rounded to 0.001° (about 100 m), in the same frame as worldPath: the
 * outer rings in `path`, the holes in them (the Caspian, lakes) in `holes`.
 */
export function detailedLand(): { path: string; holes: string } {
  const topology = JSON.parse(land10m as unknown as string);
  return { path: outlinePath(topology, "land", 3, "outer"), holes: outlinePath(topology, "land", 3, "holes") };
}

function outlinePath(topology: unknown, object: string, decimals: number, rings: "all" | "outer" | "holes" = "all"): string {
  const shapes = feature(topology as never, (topology as { objects: Record<string, never> }).objects[object]) as unknown as {
    features?: Array<{ geometry: { type: string; coordinates: unknown } | null }>;
    geometry?: { type: string; coordinates: unknown } | null;
  };
  const world = { features: shapes.features ?? [{ geometry: shapes.geometry ?? null }] };
  const parts: string[] = [];
  const ring = (points: Ring) => {
    let out = "";
    let last = "";
    let prevLon: number | undefined;
    for (const [lon, lat] of points) {
      const p = `${(lon + 180).toFixed(decimals)} ${(90 - lat).toFixed(decimals)}`;
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
    const polygons =
      f.geometry.type === "Polygon" ? [f.geometry.coordinates as Ring[]] : f.geometry.type === "MultiPolygon" ? (f.geometry.coordinates as Ring[][]) : [];
    for (const poly of polygons) poly.forEach((r, i) => (rings === "all" || (rings === "outer") === (i === 0)) && ring(r));
  }
  return parts.join("");
}
