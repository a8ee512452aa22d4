/** One question the fake AeroAPI got. */
export interface AeroApiRequest {
  /** The flight asked about (`BA117`). */
  ident: string;
  search: URLSearchParams;
  /** The `x-apikey` header it came with. */
  apiKey: string | null;
  url: string;
}

/** How the fake answers: as AeroAPI does, or failing one way. */
export type AeroApiMode = "ok" | "500" | "slow" | "huge" | "not-json";

/** A flight as AeroAPI's `GET /flights/{ident}` lists it: instants as ISO 8601 in UTC, absent ones null. */
export function aeroFlight(ident: string, times: { scheduledOn: string; estimatedOn?: string; actualOn?: string; cancelled?: boolean }) {
  const [, airline, number] = ident.match(/^([A-Z0-9]{2})(\d+[A-Z]?)$/) ?? [];
  const plus = (iso: string | undefined, minutes: number) => (iso ? new Date(Date.parse(iso) + minutes * 60_000).toISOString().replace(".000Z", "Z") : null);
  return {
    ident: `${airline}${number}`,
    ident_iata: ident,
    operator_iata: airline,
    flight_number: number,
    fa_flight_id: `${ident}-${Date.parse(times.scheduledOn) / 1000}-schedule-0000`,
    cancelled: times.cancelled ?? false,
    status: times.actualOn ? "Landed" : "En Route",
    origin: { code_iata: "LHR", code_icao: "EGLL" },
    destination: { code_iata: "JFK", code_icao: "KJFK" },
    scheduled_off: plus(times.scheduledOn, -480),
    scheduled_on: times.scheduledOn,
    estimated_on: times.estimatedOn ?? null,
    actual_on: times.actualOn ?? null,
    scheduled_in: plus(times.scheduledOn, 10),
    estimated_in: plus(times.estimatedOn, 10),
    actual_in: plus(times.actualOn, 10),
  };
}

/**
 * A stand-in for FlightAware AeroAPI v4 on 127.0.0.1 (docs/flights.md#the-flight-status-poller): `GET
 * /aeroapi/flights/{ident}` answers `{flights, links, num_pages}` from `flights`, or fails as `state.mode` says (HTTP
 * 500, an answer after 3 s, 1 MB of flights, HTML). `down()` closes the port (connections refused) until `up()`.
 */
export function startFakeAeroApi() {
  const requests: AeroApiRequest[] = [];
  const flights = new Map<string, ReturnType<typeof aeroFlight>[]>();
  const state = { mode: "ok" as AeroApiMode };
  const serve = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      async fetch(request) {
        const url = new URL(request.url);
        const ident = decodeURIComponent(url.pathname.replace(/^\/aeroapi\/flights\//, ""));
        requests.push({ ident, search: url.searchParams, apiKey: request.headers.get("x-apikey"), url: request.url });
        if (state.mode === "500") return Response.json({ title: "Internal Server Error", status: 500 }, { status: 500 });
        if (state.mode === "slow") await Bun.sleep(3000);
        if (state.mode === "not-json") return new Response("<html>maintenance</html>", { headers: { "content-type": "text/html" } });
        const huge = () => Array.from({ length: 4000 }, () => aeroFlight(ident, { scheduledOn: "2027-03-01T14:00:00Z" }));
        const listed = state.mode === "huge" ? huge() : (flights.get(ident) ?? []);
        return Response.json({ flights: listed, links: null, num_pages: 1 });
      },
    });
  let server = serve(0);
  const port = server.port!;
  return {
    url: `http://127.0.0.1:${port}/aeroapi`,
    requests,
    flights,
    state,
    /** The questions asked about `ident`. */
    asked: (ident: string) => requests.filter((r) => r.ident === ident),
    down: () => server.stop(true),
    up: () => void (server = serve(port)),
    stop: () => server.stop(true),
  };
}
