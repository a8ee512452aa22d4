/**
 * What each request of the served Postman collection sends when the collection runs whole, and what it expects back:
 * the converter fills requests with the OpenAPI document's placeholders ("string", an example booking of another
 * company), so a run would answer 4xx. Each entry here names one operation (`METHOD path` as the collection has it)
 * and gives it the run's own values: the booking company's or the operator's credentials, path variables and bodies
 * taken from what earlier requests made, and the answer expected (2xx, or an error shown on purpose).
 *
 * The run's story (against any service, a production one included): the core flow registers an operator and a
 * booking company; the operator lists an example car, the booking company finds it, books it and sends it trips; at
 * the end the run cancels every booking it made and deletes the car, so the service offers nothing it did not offer
 * before the run.
 */

/** How one request runs in a whole-collection run. */
export interface RunExample {
  /** The operator's credentials (`providerCoreToken` / `providerPlatformToken`) instead of the booking company's. */
  as?: "provider";
  /** Path variables. */
  path?: Record<string, string>;
  /** The query sent (the converter's other parameters are left out). */
  query?: Record<string, string>;
  /** The JSON body. */
  body?: unknown;
  /** An error the request shows on purpose (a run can make nothing it needs): its status and code, and why. */
  error?: { status: number; code: string; why: string };
  /** Script lines run before it. */
  prerequest?: string[];
  /** Test lines after the status check (checks of the answer, variables captured from it). */
  test?: string[];
  /**
   * Where it runs: first in its folder (it makes what the folder's other requests use), last in its folder (it
   * ends what they use), or in the clean-up at the end of the run.
   */
  runs?: "first" | "last" | "clean-up";
}

/** A script line keeping a value of the answer in a collection variable. */
export const keep = (variable: string, expression: string) =>
  `pm.collectionVariables.set(${JSON.stringify(variable)}, ${expression});`;
/** A named test line of a request's script. */
export const check = (name: string, assertion: string) => `pm.test(${JSON.stringify(name)}, function () { ${assertion} });`;

/** The trip the run sends: from JFK into Manhattan, from the booking company to the operator. */
export function tripBody(reservationType: "QUOTE" | "REGULAR", resNo: string, fees?: unknown[]) {
  return {
    reservationType,
    runType: "Airport",
    passengerCount: "2",
    luggageCount: "2",
    ...(fees ? { fees } : {}),
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    locations: {
      pickup: {
        locationType: "airport",
        address: "JFK",
        time: "2027-01-15T08:00:00",
        // The flight the pickup meets: 30 min after its scheduled landing (docs/flights.md#flights).
        flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: "2027-01-15T07:30:00" },
      },
      dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" },
    },
    affiliateReservation: {
      requesterId: "{{uid}}",
      requesterResNo: `{{${resNo}}}`,
      providerId: "{{providerUid}}",
      action: "NEW",
    },
  };
}

/** A new reservation number in `variable` before the request (a requester's numbers are unique). */
export const newResNo = (variable: string, prefix: string) => [keep(variable, `"${prefix}-" + Date.now()`)];

/**
 * Waits (up to 5 s) until the exchange's fleet search lists a car of the operator: a new car is searchable within
 * about a second, and a quote asked sooner would not see it.
 */
export const WAIT_FOR_THE_CAR = [
  "// A new car is searchable within about a second: wait until the exchange lists the operator's car.",
  'var operator = pm.variables.get("providerUid");',
  'var search = pm.variables.get("baseUrl") + "/api/search/fleet?airports=JFK&limit=50&q=";',
  "search += encodeURIComponent(operator);",
  'var auth = { key: "Authorization", value: "Bearer " + pm.variables.get("coreToken") };',
  "(function poll(tries) {",
  "  pm.sendRequest({ url: search, header: [auth] }, function (err, res) {",
  "    var items = !err && res.code === 200 ? res.json().data.items : [];",
  "    var listed = items.some(function (v) { return v.netid === operator; });",
  "    if (!listed && tries > 0) setTimeout(function () { poll(tries - 1); }, 250);",
  "  });",
  "})(20);",
];

/** The operator's example car: at JFK, deleted again by the run (the core flow's own car by the core flow). */
export function exampleCar(name: string, externalId: string, removedBy: string): Record<string, unknown> {
  return {
    type: "SUV",
    name,
    description: `The Postman collection's example car of {{providerUid}}; ${removedBy} deletes it`,
    maxPassengers: 6,
    maxLuggage: 5,
    lat: 40.6413,
    lon: -73.7781,
    airports: ["JFK"],
    minimum_rate: 120,
    hourly_rate: 95,
    currency: "USD",
    externalId,
  };
}

/** The run's trip, named by the booking company's netid and its reservation number. */
const TRIP_BY_NUMBER = { netid: "{{uid}}", resNo: "{{tripResNo}}" };
/** The operator's chauffeur, as a position names it (taken now). */
const CHAUFFEUR = { locationDateTime: "{{now}}", chfName: "Sam Lee", driverId: "CH-12" };
const NO_WEBHOOK = "the run sets no webhook URL (a public one must answer a signed challenge first)";

/** Every request of a whole run that needs the run's own values, by `METHOD path`. */
export const RUN_EXAMPLES: Record<string, RunExample> = {
  // Accounts: a dry registration checks a company without saving it.
  "POST api/company/register": {
    prerequest: [keep("dryPhone", "String(Date.now()).slice(-4)")],
    body: {
      name: "Postman dry run",
      netid: "{{uid}}-DRY",
      mainEmail: "dry-{{email}}",
      password: "{{pw}}",
      confirmPassword: "{{pw}}",
      mainPhone: "+44 117 496 {{dryPhone}}",
      mode: "dry",
      coType: "CO",
    },
    test: [check("checked, not saved", "pm.expect(pm.response.json().dryRun).to.eql(true);")],
  },
  "GET api/user/check": { query: { username: "{{uid}}", email: "{{email}}" } },

  // Fleet: the operator's example car, changed, imported again, blocked for a while; deleted in the clean-up.
  "GET api/fleet": { as: "provider", query: { limit: "20", sort: "updatedAt", order: "desc" } },
  "POST api/fleet": {
    as: "provider",
    runs: "first",
    body: exampleCar("Postman example SUV", "postman-suv", "the run's clean-up"),
    test: [keep("vehicleSlug", "pm.response.json().data.slug")],
  },
  "POST api/fleet/import": {
    as: "provider",
    query: { mode: "upsert" },
    body: [{ ...exampleCar("Postman example SUV", "postman-suv", "the run's clean-up"), hourly_rate: 99 }],
    test: [
      'var updated = pm.response.json().data.updatedSlugs;',
      check("the same car, updated by its externalId", 'pm.expect(updated).to.eql([pm.variables.get("vehicleSlug")]);'),
    ],
  },
  "GET api/fleet/:slug": { as: "provider", path: { slug: "{{vehicleSlug}}" } },
  "PATCH api/fleet/:slug": {
    as: "provider",
    path: { slug: "{{vehicleSlug}}" },
    body: { description: "Leather seats, meet & greet ({{providerUid}})" },
  },
  "DELETE api/fleet/:slug": { as: "provider", path: { slug: "{{vehicleSlug}}" }, runs: "clean-up" },
  "POST api/fleet/:slug/blackouts": {
    as: "provider",
    path: { slug: "{{vehicleSlug}}" },
    body: { from: "2030-05-01T00:00:00Z", to: "2030-05-02T00:00:00Z", reason: "Service" },
    test: [keep("blackoutId", "pm.response.json().data.id")],
  },
  "GET api/fleet/:slug/blackouts": { as: "provider", path: { slug: "{{vehicleSlug}}" } },
  "DELETE api/fleet/:slug/blackouts/:id": { as: "provider", path: { slug: "{{vehicleSlug}}", id: "{{blackoutId}}" } },
  "GET api/fleet/:slug/schedule": {
    as: "provider",
    path: { slug: "{{vehicleSlug}}" },
    query: { from: "2030-05-01T00:00:00Z", to: "2030-05-08T00:00:00Z" },
  },
  "GET api/search/fleet": { query: { airports: "JFK", types: "SUV,SEDAN", limit: "20" } },

  // Trips: a trip to the operator, confirmed and assigned by it, read both ways; cancelled in the clean-up.
  "POST Platform.svc/sendTrip/V1": {
    runs: "first",
    prerequest: newResNo("tripResNo", "PM-TRIP"),
    body: tripBody("REGULAR", "tripResNo"),
    test: [keep("tripId", "pm.response.json().transactionId")],
  },
  "GET api/reservations": { query: { role: "requester", limit: "20" } },
  // The operator's lost offers (docs/terms.md#who-sees-what): none in this run, an empty list.
  "GET api/reservations/lost": { as: "provider", query: { limit: "25" } },
  "GET api/reservation/:transactionId/cancel-fee": { path: { transactionId: "{{tripId}}" } },
  "GET api/reservation/:transactionId": { path: { transactionId: "{{tripId}}" } },
  // The flight lands 20 min late: the pickup follows it (docs/flights.md#the-pickup-follows-the-flight).
  "POST api/reservation/:transactionId/flight-status": {
    path: { transactionId: "{{tripId}}" },
    body: { estimatedArrival: "2027-01-15T07:50:00" },
    test: [check("the pickup moved", "pm.expect(pm.response.json().data.time).to.eql('2027-01-15T08:20:00');")],
  },
  "POST Platform.svc/providerUpdateStatusByTransactionId/:transactionId/V1": {
    as: "provider",
    path: { transactionId: "{{tripId}}" },
    prerequest: newResNo("providerResNo", "OP"),
    body: { status: "CONFIRMED", providerResNo: "{{providerResNo}}" },
  },
  "POST Platform.svc/cancelTripByTransactionId/:transactionId/V1": {
    path: { transactionId: "{{tripId}}" },
    runs: "clean-up",
  },
  "GET Platform.svc/getReservationByTransactionId/:transactionId/V1": { path: { transactionId: "{{tripId}}" } },
  "POST Platform.svc/providerUpdateStatusByResNo/:netid/:resNo/V1": {
    as: "provider",
    path: { netid: "{{providerUid}}", resNo: "{{providerResNo}}" },
    body: { status: "ASSIGNED" },
  },
  "GET Platform.svc/getReservationByReservationId/:netid/:resNo/V1": { path: TRIP_BY_NUMBER },
  "GET Platform.svc/cancelTripByResNo/:netid/:resNo/V1": {
    path: { netid: "{{uid}}", resNo: "{{bookedResNo}}" },
    runs: "clean-up",
  },
  "POST Platform.svc/cancelTripByResNo/:netid/:resNo/V1": {
    path: { netid: "{{uid}}", resNo: "{{spareResNo}}" },
    runs: "clean-up",
  },
  "GET Platform.svc/retryTransaction/:transactionId/V1": {
    path: { transactionId: "{{tripId}}" },
    error: { status: 409, code: "NOTHING_TO_RETRY", why: "the operator has no delivery endpoint: no delivery failed" },
  },

  // Quotes: the booking company's network quote finds the operator's car; it books it (cancelled in the clean-up).
  "POST api/quotes": {
    prerequest: WAIT_FOR_THE_CAR,
    test: [
      'var operator = pm.variables.get("providerUid");',
      "var mine = pm.response.json().data.options.filter(function (o) { return o.provider.netid === operator; });",
      check("the operator's car is offered", "pm.expect(mine.length).to.be.above(0);"),
      keep("quoteId", "pm.response.json().data.quoteId"),
      keep("quoteOptionId", "mine[0].quoteOptionId"),
    ],
  },
  "GET api/quotes/:quoteId": { path: { quoteId: "{{quoteId}}" } },
  "POST api/quotes/:quoteId/book": {
    path: { quoteId: "{{quoteId}}" },
    prerequest: newResNo("bookedResNo", "PM-BOOKED"),
    body: {
      quoteOptionId: "{{quoteOptionId}}",
      requesterResNo: "{{bookedResNo}}",
      passengers: [{ firstName: "Grace", lastName: "Hopper", phoneNumber: "+12125550100" }],
      specialInstructions: "Meet at arrivals, door 4",
    },
  },
  "GET api/providers/:netid/record": { path: { netid: "{{providerUid}}" } },
  // The operator releases a requester's pending requests: one that sent it nothing (the run's own bookings are
  // cancelled in the clean-up, so none of them is released here).
  "POST api/requesters/:netid/release": {
    as: "provider",
    path: { netid: "{{providerUid}}" },
    test: [check("nothing released", "pm.expect(pm.response.json().data.released).to.eql([]);")],
  },

  // Statements (docs/settlement.md#statements-and-settlement): the month of the run's trips. The core flow's give-back
  // left the operator owing the booking company a cost recovery: one counterparty, one line, which the booking
  // company disputes and the operator answers.
  "GET api/statements": {
    query: { period: "2027-01" },
    test: [
      "var list = pm.response.json().data;",
      check("the operator, owing its give-back", 'pm.expect(list.map(function (c) { return c.counterparty; })).to.eql([pm.variables.get("providerUid")]);'),
    ],
  },
  "POST api/statements/disputes": {
    body: { transactionId: "{{giveBackId}}", reason: "The give-back cost us a dearer car" },
    test: [keep("disputeId", "pm.response.json().data.id")],
  },
  "POST api/statements/disputes/:id/answer": {
    as: "provider",
    path: { id: "{{disputeId}}" },
    body: { answer: "We gave it back 30 days ahead: 10 % is what the tiers say" },
    test: [check("answered", 'pm.expect(pm.response.json().data.state).to.eql("ANSWERED");')],
  },

  // Rates: the operator's card, set, read and removed.
  "PUT api/company/rates": { as: "provider", runs: "first" },
  "GET api/company/rates": { as: "provider" },
  "DELETE api/company/rates": { as: "provider", runs: "last" },

  // Integration: the booking company's settings.
  "PUT api/company/integration": { body: { displayCurrency: "EUR" } },
  "POST api/company/integration/webhook-verify": { error: { status: 409, code: "NO_WEBHOOK_URL", why: NO_WEBHOOK } },
  "GET api/webhooks/deliveries/:id": {
    path: { id: "0" },
    error: { status: 404, code: "DELIVERY_NOT_FOUND", why: `no webhook was sent: ${NO_WEBHOOK}` },
  },
  "POST api/webhooks/deliveries/:id/replay": {
    path: { id: "0" },
    error: { status: 404, code: "DELIVERY_NOT_FOUND", why: `no webhook was sent: ${NO_WEBHOOK}` },
  },
  "POST api/webhooks/test": { error: { status: 409, code: "NO_WEBHOOK_URL", why: NO_WEBHOOK } },

  // Partnerships: the booking company asks the operator, which accepts and maps its vehicle types; then it ends.
  "POST api/partners": { body: { netid: "{{providerUid}}" } },
  "POST api/partners/:netid/accept": { as: "provider", path: { netid: "{{uid}}" } },
  "DELETE api/partners/:netid": { path: { netid: "{{providerUid}}" }, runs: "last" },
  "PUT api/partners/:netid/vehicle-types": { as: "provider", path: { netid: "{{uid}}" } },
  "GET api/partner/:netid": { path: { netid: "{{uid}}" }, query: { format: "full" } },

  // Tracking: the operator pushes its chauffeur's position on the assigned trip; the booking company reads it.
  "POST api/GGPS.svc/saveGPScache": {
    as: "provider",
    prerequest: [keep("now", "new Date().toISOString().replace(/\\.\\d+Z$/, \"Z\")")],
    body: { transactionId: "{{tripId}}", latitude: 40.6598, longitude: -73.8097, ...CHAUFFEUR },
  },
  "POST api/GGPS.svc/GPSgrab": {
    as: "provider",
    prerequest: [
      keep("now", "new Date().toISOString().replace(/\\.\\d+Z$/, \"Z\")"),
      "// A booking's positions are taken at most once a second: the one before was just sent.",
      "setTimeout(function () {}, 1100);",
    ],
    body: [{ transactionId: "{{tripId}}", latitude: 40.6612, longitude: -73.8021, ...CHAUFFEUR }],
    test: [check("accepted", "pm.expect(pm.response.json().data.accepted).to.eql(1);")],
  },
  "GET Platform.svc/getChauffeurLocationByTransactionId/:transactionId/V1": { path: { transactionId: "{{tripId}}" } },
  "GET Platform.svc/getChauffeurLocationByResNo/:netid/:resNo/V1": { path: TRIP_BY_NUMBER },
  "GET Platform.svc/getChauffeurLocationByResNoArray/:netid/:resNos/V1": {
    path: { netid: "{{uid}}", resNos: "{{tripResNo}}" },
  },
};
