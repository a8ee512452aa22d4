import { check, keep, tripBody, type RunExample } from "./postman-examples";

/**
 * The "Airport trip" folder of the Postman collection (docs/flights.md): an airport booking whose flight lands early,
 * run minute by minute against any service. The operator charges waiting; the booking meets BA117; the chauffeur's
 * device uploads its cached positions (the ETA, then the arrival); a NO_SHOW sent too early is refused; the flight
 * status moves the pickup; the passenger boards and the waiting is charged; the trip is closed, so nothing stays live.
 * Its times are counted from the minute the run books: the positions and the landing lie in the past, so that the
 * waiting beyond the free hour (97 minutes: 3 started periods of 15 beyond 60) shows at once.
 */

export const AIRPORT_TRIP = "Airport trip: flight, arrival, waiting";

export interface AirportStep {
  name: string;
  /** The converted request it copies, `METHOD path`. */
  copies: string;
  example: RunExample;
}

/** The run's minutes from the booking: BA117 was to land at +60 with the pickup at +90; it landed at −130. */
const MINUTES = { landing: 60, pickup: 90, etaTaken: -105, arrivedAt: -97, noShowFrom: 150, landed: -130, pickupMoved: -100 };

/** Sets each time of the story (UTC instants, to the second) in the collection variables, from the current minute. */
const SET_TIMES = [
  "// Every time of the story is counted from the current minute (UTC instants).",
  "var base = Math.floor(Date.now() / 60000) * 60000;",
  'var at = function (m) { return new Date(base + m * 60000).toISOString().replace(/\\.\\d+Z$/, "Z"); };',
  ...Object.entries(MINUTES).map(([name, m]) => keep(variableOf(name), `at(${m})`)),
  keep("airportResNo", '"PM-AIRPORT-" + Date.now()'),
];

function variableOf(name: string): string {
  return `airport${name[0].toUpperCase()}${name.slice(1)}`;
}

/** The collection variables the folder sets. */
export const AIRPORT_VARIABLES = ["airportTripId", "airportResNo", ...Object.keys(MINUTES).map(variableOf)];

const TRIP = { transactionId: "{{airportTripId}}" };
const statusStep = (name: string, status: string, extra: Partial<RunExample> = {}): AirportStep => ({
  name,
  copies: "POST Platform.svc/providerUpdateStatusByTransactionId/:transactionId/V1",
  example: { as: "provider", path: TRIP, body: { status }, ...extra },
});
const position = (name: string, north: number, taken: string, prerequest?: string[]): AirportStep => ({
  name,
  copies: "POST api/GGPS.svc/saveGPScache",
  example: {
    as: "provider",
    ...(prerequest ? { prerequest } : {}),
    body: { transactionId: "{{airportTripId}}", latitude: 40.63983 + north / 111_195, longitude: -73.77874, locationDateTime: `{{${taken}}}` },
  },
});
const readStep = (name: string, test: string[]): AirportStep => ({
  name,
  copies: "GET api/reservation/:transactionId",
  example: { path: TRIP, test: ["var b = pm.response.json().data;", ...test] },
});
const equals = (expression: string, variable: string) => `pm.expect(${expression}).to.eql(pm.variables.get(${JSON.stringify(variable)}));`;

/** The folder's steps, in order. */
export const AIRPORT_STEPS: AirportStep[] = [
  {
    name: "1. The operator charges waiting: 20.00 per started 15 min beyond the free 60 at an airport",
    copies: "PUT api/company/integration",
    example: {
      as: "provider",
      body: { policies: { waitingRate: { amount: "20.00", perMinutes: 15 }, freeWaitingMinutes: { airport: 60 } } },
      test: [check("the waiting rate is kept", 'pm.expect(pm.response.json().data.policies.waitingRate).to.eql({ amount: "20.00", perMinutes: 15 });')],
    },
  },
  {
    name: "2. Book an airport trip: BA117 lands in an hour, the pickup is 30 min after it",
    copies: "POST Platform.svc/sendTrip/V1",
    example: {
      prerequest: SET_TIMES,
      body: (() => {
        const trip = tripBody("REGULAR", "airportResNo");
        const flightInfo = { airlineCode: "BA", flightNumber: "117", scheduledArrival: "{{airportLanding}}" };
        trip.locations.pickup = { ...trip.locations.pickup, time: "{{airportPickup}}", flightInfo };
        return trip;
      })(),
      test: [keep("airportTripId", "pm.response.json().transactionId")],
    },
  },
  statusStep("3. The operator accepts", "CONFIRMED"),
  statusStep("4. The operator assigns a chauffeur", "ASSIGNED"),
  position("5. The chauffeur's device uploads a cached position, 10 km north of JFK", 10_000, "airportEtaTaken"),
  readStep("6. Read the booking: the flight and the ETA (13 km of road at 40 km/h: 20 min)", [
    check(
      "the flight, 30 min before the pickup",
      'pm.expect(b.flight).to.include({ airlineCode: "BA", flightNumber: "117", state: "SCHEDULED", pickupOffsetMinutes: 30 });',
    ),
    check("the ETA from the latest position", "pm.expect(b.eta.toPickupMinutes).to.eql(20);"),
    check(
      "the booking keeps the waiting rate",
      'pm.expect(b.terms.waitingRate).to.eql({ amount: "20.00", perMinutes: 15 }); pm.expect(b.terms.freeWaitingMinutes).to.eql(60);',
    ),
  ]),
  statusStep("7. The chauffeur is on the way", "EN_ROUTE"),
  position("8. A cached position at the airport: the chauffeur's arrival", 200, "airportArrivedAt", [
    "// A booking's positions are taken at most once a second: the one before was just sent.",
    "setTimeout(function () {}, 1100);",
  ]),
  statusStep("9. The operator says ON_LOCATION", "ON_LOCATION"),
  statusStep("10. A NO_SHOW now is refused: the free waiting runs from the pickup, still ahead", "NO_SHOW", {
    error: { status: 409, code: "NO_SHOW_TOO_EARLY", why: "a NO_SHOW waits for the free minutes after the arrival or the pickup" },
    test: [check("it names when a NO_SHOW becomes allowed", equals("pm.response.json().allowedFrom", "airportNoShowFrom"))],
  }),
  readStep("11. Read the booking: arrivedAt from the positions, and no ETA any more", [
    check("arrived when the airport position was taken", equals("b.arrivedAt", "airportArrivedAt")),
    check("no ETA once ON_LOCATION", "pm.expect(b.eta).to.eql(undefined);"),
    check("the NO_SHOW changed nothing", 'pm.expect(b.lastStatus).to.eql("ON_LOCATION");'),
  ]),
  {
    name: "12. The flight landed early after all: the pickup moves to the landing + 30 min",
    copies: "POST api/reservation/:transactionId/flight-status",
    example: {
      path: TRIP,
      body: { actualArrival: "{{airportLanded}}" },
      test: [
        "var r = pm.response.json().data;",
        check("the pickup moved earlier", 'pm.expect(r.moved).to.eql(true); pm.expect(r.move.cause).to.eql("FLIGHT_EARLY");'),
        check("to the landing + 30 min", equals("r.move.to", "airportPickupMoved")),
      ],
    },
  },
  statusStep("13. The passenger is on board: the waiting is charged", "PASSENGER_ON_BOARD"),
  readStep("14. Read the booking: 97 min waited, 3 WAITING lines of 20.00 with their evidence", [
    "var lines = b.tripPacket.fees.filter(function (f) { return f.code === \"WAITING\"; });",
    check(
      "three started periods beyond the free hour",
      'pm.expect(lines.length).to.eql(3); pm.expect(lines[0]).to.include({ type: "CHARGE", fee: "20.00" });',
    ),
    check(
      "the evidence: from the arrival to on board",
      `${equals("lines[0].evidence.arrivedAt", "airportArrivedAt")} pm.expect(lines[0].evidence.waitedMinutes).to.be.within(97, 104);`,
    ),
  ]),
  statusStep("15. The trip is complete", "COMPLETE"),
  statusStep("16. The operator closes it (nothing stays live)", "CLOSE"),
];
