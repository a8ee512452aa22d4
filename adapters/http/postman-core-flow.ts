import { WAIT_FOR_THE_CAR, exampleCar, keep, newResNo, tripBody, type RunExample } from "./postman-examples";

/**
 * The "Core flow" folder of the Postman collection, step by step: each a copy of one converted request (`METHOD
 * path`) with its own values. It runs alone on any service, a production one too: it registers an operator and a
 * booking company, lists the operator's car, finds, quotes, books and reads it, then cancels the booking and deletes
 * the car, so nothing it made stays offered or booked.
 */

export interface CoreStep {
  name: string;
  /** The converted request it copies, `METHOD path`. */
  copies: string;
  example: RunExample;
}

/**
 * The booking company's give-back recovery in the core flow: 10 % until 30 days before the pickup (the longest tier
 * allowed; the run's trip is further off), all of it after.
 */
const GIVE_BACK_TIERS = [
  { beforeMinutes: 43200, percent: 10 },
  { beforeMinutes: 0, percent: 100 },
];

const login = (uid: string) => ({ uid: `{{${uid}}}`, pw: "{{pw}}" });
const capture = (variable: string, value: string) => [keep(variable, value)];
const registered = (variable: string) => [
  "var netid = pm.response.json().data.netid;",
  `pm.test("registered", function () { pm.expect(netid).to.eql(pm.variables.get(${JSON.stringify(variable)})); });`,
];

function registration(prefix: "" | "provider", coType: "IO" | "CO", name: string) {
  const v = (key: string) => `{{${prefix ? `${prefix}${key[0].toUpperCase()}${key.slice(1)}` : key}}}`;
  const [netid, mainEmail, mainPhone, password] = [v("uid"), v("email"), v("phone"), "{{pw}}"];
  return { name, netid, mainEmail, password, confirmPassword: password, mainPhone, coType };
}

/** Two new companies on every run; the password is random unless `pw` is set. */
export const NEW_COMPANIES = [
  "// Two new companies on every run: netids, e-mails and phones are unique; one password, random unless pw is set.",
  "var n = String(Date.now()).slice(-6) + String(Math.floor(Math.random() * 10));",
  keep("providerUid", '"POSTMAN-OP-" + n'),
  keep("providerEmail", '"postman-op-" + n + "@example.com"'),
  keep("providerPhone", '"+44 20 7946 " + n.slice(-4)'),
  keep("uid", '"POSTMAN-" + n'),
  keep("email", '"postman-" + n + "@example.com"'),
  keep("phone", '"+44 161 496 " + n.slice(-4)'),
  'if (!pm.variables.get("pw")) ' + keep("pw", 'require("crypto-js").lib.WordArray.random(24).toString()'),
];

/** A company's two token steps: its core JWT and its platform token, each kept in the variable named. */
function tokenSteps(names: [string, string], uid: string, [core, platform]: [string, string]): CoreStep[] {
  return [
    { name: names[0], copies: "POST api/token", example: { body: login(uid), test: capture(core, "pm.response.json().token") } },
    { name: names[1], copies: "POST Platform.svc/getToken2", example: { body: login(uid), test: capture(platform, "pm.response.json()") } },
  ];
}

export const CORE_STEPS: CoreStep[] = [
  {
    name: "1. Register an operator",
    copies: "POST api/company/register",
    example: {
      prerequest: NEW_COMPANIES,
      body: registration("provider", "IO", "Postman operator {{providerUid}}"),
      test: registered("providerUid"),
    },
  },
  {
    name: "2. Register a booking company",
    copies: "POST api/company/register",
    example: { body: registration("", "CO", "Postman bookings {{uid}}"), test: registered("uid") },
  },
  ...tokenSteps(["3. Get a core token", "4. Get a platform token"], "uid", ["coreToken", "platformToken"]),
  ...tokenSteps(
    ["5. The operator's core token", "6. The operator's platform token"],
    "providerUid",
    ["providerCoreToken", "providerPlatformToken"],
  ),
  {
    name: "7. The operator lists a car at JFK",
    copies: "POST api/fleet",
    example: {
      as: "provider",
      body: exampleCar("Postman core flow SUV", "postman-core-suv", "the core flow"),
      test: capture("coreVehicleSlug", "pm.response.json().data.slug"),
    },
  },
  {
    name: "8. Search fleets around JFK: the operator's car is found",
    copies: "GET api/search/fleet",
    example: {
      query: { airports: "JFK", q: "{{providerUid}}", limit: "5" },
      prerequest: WAIT_FOR_THE_CAR,
      test: [
        "var slugs = pm.response.json().data.items.map(function (v) { return v.slug; });",
        'var slug = pm.variables.get("coreVehicleSlug");',
        'pm.test("the car is found", function () { pm.expect(slugs).to.include(slug); });',
      ],
    },
  },
  {
    name: "8a. Search fleets around a city (Boston, US)",
    copies: "GET api/search/fleet",
    example: {
      query: { city: "Boston", country: "US", limit: "5" },
      test: ['pm.test("an answer", function () { pm.expect(pm.response.json().data.items).to.be.an("array"); });'],
    },
  },
  {
    name: "9. Ask the operator for a quote",
    copies: "POST Platform.svc/sendTrip/V1",
    example: {
      prerequest: newResNo("requesterResNo", "PM"),
      body: tripBody("QUOTE", "requesterResNo"),
      test: [
        "var quote = pm.response.json();",
        "var codes = quote.fees.map(function (f) { return f.code; });",
        'pm.test("a quote offering the car", function () {',
        '  pm.expect(quote.status).to.eql("QUOTE");',
        '  pm.expect(codes).to.include(pm.variables.get("coreVehicleSlug"));',
        "});",
        keep("transactionId", "quote.transactionId"),
        keep("optionCode", "quote.fees[0].code"),
        keep("quotedAmount", "quote.fees[0].fee"),
      ],
    },
  },
  {
    name: "10. Book the first option",
    copies: "POST Platform.svc/sendTrip/V1",
    example: {
      body: tripBody("REGULAR", "requesterResNo", [{ code: "{{optionCode}}" }]),
      test: [
        "var booking = pm.response.json();",
        'pm.test("the quote became a booking at its price", function () {',
        '  pm.expect(booking.transactionId).to.eql(pm.variables.get("transactionId"));',
        '  pm.expect(booking.status).to.eql("BOOKING_REQUEST");',
        '  pm.expect(booking.totalAmount).to.eql(pm.variables.get("quotedAmount"));',
        "});",
      ],
    },
  },
  {
    name: "11. Read the booking",
    copies: "GET api/reservation/:transactionId",
    example: {
      path: { transactionId: "{{transactionId}}" },
      test: [
        "var b = pm.response.json().data;",
        'pm.test("the booking, priced", function () {',
        '  pm.expect(b.transactionId).to.eql(pm.variables.get("transactionId"));',
        "  pm.expect(b.tripPacket.totalAmount).to.not.eql(null);",
        "});",
      ],
    },
  },
  {
    name: "12. The FX table network quotes convert with",
    copies: "GET api/fx",
    example: {
      test: [
        "var fx = pm.response.json().data;",
        'pm.test("EUR-based rates of one day", function () {',
        '  pm.expect(fx.base).to.eql("EUR");',
        "  pm.expect(fx.date).to.match(/^\\d{4}-\\d{2}-\\d{2}$/);",
        "  pm.expect(fx.rates.USD).to.be.above(0);",
        "});",
      ],
    },
  },
  {
    name: "13. Cancel the booking (nothing stays booked)",
    copies: "POST Platform.svc/cancelTripByTransactionId/:transactionId/V1",
    example: { path: { transactionId: "{{transactionId}}" } },
  },
  // Give-back recovery (docs/settlement.md#give-back-recovery): the booking company names what a give-back costs; the
  // operator accepts a second booking and gives it back, and its read shows the recovery owed. It ends CANCEL.
  {
    name: "13a. The booking company names what a give-back costs the operator",
    copies: "PUT api/company/integration",
    example: {
      body: { giveBackRecovery: GIVE_BACK_TIERS },
      test: [
        `pm.test("the tiers are saved", function () { pm.expect(pm.response.json().data.giveBackRecovery).to.eql(${JSON.stringify(GIVE_BACK_TIERS)}); });`,
      ],
    },
  },
  {
    name: "13b. Another trip to the operator, quoted",
    copies: "POST Platform.svc/sendTrip/V1",
    example: {
      prerequest: newResNo("giveBackResNo", "PM-GIVEBACK"),
      body: tripBody("QUOTE", "giveBackResNo"),
      test: [keep("giveBackId", "pm.response.json().transactionId"), keep("giveBackOption", "pm.response.json().fees[0].code")],
    },
  },
  {
    name: "13c. Booked, for the operator to give back",
    copies: "POST Platform.svc/sendTrip/V1",
    example: { body: tripBody("REGULAR", "giveBackResNo", [{ code: "{{giveBackOption}}" }]) },
  },
  {
    name: "13d. The operator accepts it",
    copies: "POST Platform.svc/providerUpdateStatusByTransactionId/:transactionId/V1",
    example: { as: "provider", path: { transactionId: "{{giveBackId}}" }, body: { status: "CONFIRMED" } },
  },
  {
    name: "13e. The operator gives it back",
    copies: "POST Platform.svc/providerUpdateStatusByTransactionId/:transactionId/V1",
    example: { as: "provider", path: { transactionId: "{{giveBackId}}" }, body: { status: "CANCEL" } },
  },
  {
    name: "13f. Read it: the cost recovery the operator owes",
    copies: "GET api/reservation/:transactionId",
    example: {
      path: { transactionId: "{{giveBackId}}" },
      test: [
        "var b = pm.response.json().data;",
        "var r = b.tripPacket.costRecovery;",
        'pm.test("a COST_RECOVERY owed by the operator: 10 % of the quoted fare", function () {',
        '  pm.expect(b.lastStatus).to.eql("CANCEL");',
        '  pm.expect(r.kind).to.eql("COST_RECOVERY");',
        '  pm.expect(r.owedBy).to.eql(pm.variables.get("providerUid"));',
        '  pm.expect(r.owedTo).to.eql(pm.variables.get("uid"));',
        "  pm.expect(r.percent).to.eql(10);",
        "  // In whole cents: 10 % of the fare, rounded half up.",
        '  var cents = function (x) { return parseInt(x.replace(".", ""), 10); };',
        "  pm.expect(cents(r.amount)).to.eql(Math.floor((cents(r.fare) * 10 + 50) / 100));",
        "});",
      ],
    },
  },
  {
    name: "14. The operator deletes its car (nothing stays offered)",
    copies: "DELETE api/fleet/:slug",
    example: { as: "provider", path: { slug: "{{coreVehicleSlug}}" } },
  },
];

/** One more trip to the operator, made in the clean-up, for it to cancel by its reservation number. */
export const SPARE_TRIP: CoreStep = {
  name: "One more trip, to cancel by its number",
  copies: "POST Platform.svc/sendTrip/V1",
  example: { prerequest: newResNo("spareResNo", "PM-SPARE"), body: tripBody("REGULAR", "spareResNo") },
};
