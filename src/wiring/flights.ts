import type { OutboundGuard } from "../../adapters/delivery/outbound-guard";
import { AeroApiFlightStatus, type JsonGet } from "../../adapters/flight-status/aeroapi";
import { getJson } from "../../adapters/geocoder/pinned-get";
import type { RateBudgets } from "../../domain/rate-limit";
import { flightPoller } from "../../domain/usecases/poll-flights";
import type { Wiring } from "./context";
import type { TripWiring } from "./trips";

/** An AeroAPI answer for one flight over a day is a few kilobytes; anything near this is not one. */
const MAX_ANSWER_BYTES = 512 * 1024;

interface FlightParts {
  trips: TripWiring["trips"];
  guard: OutboundGuard;
  rateBudgets: RateBudgets;
}

/**
 * The flight-status poller (docs/flights.md#the-flight-status-poller), when FLIGHT_STATUS_KEY is set: AeroAPI as the
 * FlightStatus port, asked through the guard every outbound request passes (the address pinned, the answer bounded in
 * time and size), moving pickups through the flight-status use case the route uses. Its problems are logged without
 * the key (it rides in a header, never in a URL or a message).
 */
export function wireFlights({ storage, config, logger }: Wiring, { trips, guard, rateBudgets }: FlightParts) {
  const settings = config.flightStatus;
  if (!settings) return { flightPoll: undefined };
  const get: JsonGet = async (url, headers) => {
    const checked = await guard.check(url);
    if (!checked.ok) return { ok: false, reason: `FLIGHT_STATUS_URL ${checked.reason}` };
    return getJson(checked.target, { "user-agent": "TripSwitch-FlightStatus/1.0", ...headers }, settings.timeoutMs, MAX_ANSWER_BYTES);
  };
  const status = new AeroApiFlightStatus({ baseUrl: settings.url, apiKey: settings.apiKey, get, timeoutMs: settings.timeoutMs });
  const poller = flightPoller({
    follow: trips.flights,
    landings: storage.landingsDue,
    status,
    budgets: rateBudgets,
    settings,
    onProblem: (problem) =>
      logger.warn(problem, problem.backoffSeconds ? "flight status: the API failed; backing off" : "flight status: a pickup could not follow its flight"),
  });
  return { flightPoll: { ...poller, intervalSeconds: settings.intervalSeconds } };
}
