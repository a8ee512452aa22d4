/** The map tiles the console's browser loads: a URL template, the one origin the page policy allows, the credit. */
export interface MapTiles {
  /** e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png; undefined: no tiles (CONSOLE_MAP_TILES=off), the outline only. */
  template: string | undefined;
  /** The template's origin (scheme, host, port): the only other place the console's images may come from. */
  origin: string | undefined;
  /** Plain text shown in the map's corner (the tiles' licence asks for it). */
  attribution: string;
}

export const DEFAULT_MAP_TILES_TEMPLATE = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";
export const DEFAULT_MAP_ATTRIBUTION = "© OpenStreetMap contributors";

/** OpenStreetMap's standard tiles, loaded by the browser when it is online. */
export const DEFAULT_MAP_TILES: MapTiles = {
  template: DEFAULT_MAP_TILES_TEMPLATE,
  origin: "https://tile.openstreetmap.org",
  attribution: DEFAULT_MAP_ATTRIBUTION,
};

/** One https origin: a DNS name or a bracketed IPv6 address, an optional port; nothing a policy could read as more. */
const POLICY_ORIGIN = /^https:\/\/((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Whether `origin` may stand in the console's Content-Security-Policy as the tiles' image source. */
export function isPolicyOrigin(origin: string): boolean {
  return POLICY_ORIGIN.test(origin);
}

const PLACEHOLDER = /\{([^{}]*)\}/g;
const ALLOWED = new Set(["z", "x", "y", "r"]);

/**
 * CONSOLE_MAP_TILES (and CONSOLE_MAP_ATTRIBUTION) read and checked: an https URL naming one host (a DNS name or an
 * IP address, an optional port), with {z}, {x} and {y} (and optionally {r}) in its path or query; "off" for no tiles.
 * Its origin goes into the console's Content-Security-Policy, so nothing that could widen or end a source there
 * (`*`, `;`, `,`, spaces, quotes) is accepted anywhere in the value, nor a plain http origin (issue 37 N10). Throws an Error whose message names the
 * variable; unset or empty: OpenStreetMap's standard tiles.
 */
export function mapTilesFrom(raw: string | undefined, rawAttribution?: string): MapTiles {
  const value = raw?.trim() ?? "";
  const attribution = rawAttribution?.trim() || DEFAULT_MAP_ATTRIBUTION;
  if (attribution.length > 300 || /[\u0000-\u001f<>]/.test(attribution))
    throw new Error("CONSOLE_MAP_ATTRIBUTION must be plain text of at most 300 characters (no < or >)");
  if (value === "") return { ...DEFAULT_MAP_TILES, attribution };
  if (value.toLowerCase() === "off") return { template: undefined, origin: undefined, attribution };
  const problem = `CONSOLE_MAP_TILES must be "off" or an https:// URL template with {z}, {x} and {y}, like ${DEFAULT_MAP_TILES_TEMPLATE}`;
  if (value.length > 500 || /[\s"'`<>\\]/.test(value)) throw new Error(`${problem}; it has spaces, quotes or other characters a URL template does not`);
  const wild = /[*;,]/.exec(value);
  if (wild) throw new Error(`${problem}; it has "${wild[0]}", which would change the page's Content-Security-Policy`);
  const scheme = /^https:\/\//i.exec(value);
  if (!scheme) throw new Error(`${problem}; it does not start with https:// (an http:// origin is not accepted)`);
  const pathStart = value.indexOf("/", scheme[0].length);
  const authority = value.slice(0, pathStart < 0 ? value.length : pathStart);
  if (pathStart < 0) throw new Error(`${problem}; it has no path`);
  if (authority.includes("{")) throw new Error(`${problem}; the host must be one fixed name (no {s} subdomains: the page policy allows exactly one origin)`);
  if (authority.includes("@")) throw new Error(`${problem}; it must not carry a user name or password`);
  let origin: string;
  try {
    origin = new URL(authority).origin;
  } catch {
    throw new Error(`${problem}; its host is not valid`);
  }
  if (!isPolicyOrigin(origin)) throw new Error(`${problem}; its host is not valid`);
  const names = [...value.matchAll(PLACEHOLDER)].map((m) => m[1]);
  const unknown = names.find((n) => !ALLOWED.has(n));
  if (unknown !== undefined) throw new Error(`${problem}; {${unknown}} is not a placeholder the console fills (only {z}, {x}, {y} and {r})`);
  for (const needed of ["z", "x", "y"]) if (!names.includes(needed)) throw new Error(`${problem}; {${needed}} is missing`);
  return { template: origin + value.slice(pathStart), origin, attribution };
}
