import type { Services } from "../services";
import { sendTrip } from "../../domain/usecases/send-trip";
import type { SandboxTrip } from "../../domain/usecases/sandbox-dispatch";

/**
 * The demo platform's airport pickup whose flight lands late (docs/operator.md#a-flight-that-lands-late): booked with
 * Acme Limousine, a sandbox, whose simulated dispatcher reports the flight late a few minutes after the start.
 */
export const DEMO_FLIGHT = { requesterId: "DEMO-PLATFORM", requesterResNo: "DEMO-FLIGHT-1", providerId: "ACME-LIMO" } as const;

/** The flight the demo pickup meets, and how long after its landing the chauffeur meets the passenger. */
const FLIGHT = { airlineCode: "BA", flightNumber: "117" } as const;
const PICKUP_AFTER_LANDING_MIN = 45;

/** Whether the sandbox dispatcher reports this trip's flight late: the demo's own airport pickup only. */
export const delaysDemoFlight = (trip: Pick<SandboxTrip, "requesterId" | "requesterResNo">) =>
  trip.requesterId === DEMO_FLIGHT.requesterId && trip.requesterResNo === DEMO_FLIGHT.requesterResNo;

/** An instant as the API writes it: UTC, whole seconds, `Z`. */
const instant = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * Books the demo's airport pickup unless it exists: BA117 scheduled to land at JFK in about two hours (on a five
 * minute mark), the pickup 45 minutes after it. Returns its transaction id (undefined without the demo companies).
 */
export async function bookDemoFlight(services: Services, nowMs = Date.now()): Promise<string | undefined> {
  const existing = await services.trips.manage.bookings.findByResNo("requester", DEMO_FLIGHT.requesterId, DEMO_FLIGHT.requesterResNo);
  if (existing) return existing.transactionId;
  const requester = await services.users.findCaller(DEMO_FLIGHT.requesterId);
  if (!requester || !(await services.companies.findByNetid(DEMO_FLIGHT.providerId))) return undefined;
  const fiveMinutes = 300_000;
  const landing = Math.ceil((nowMs + 2 * 3600_000) / fiveMinutes) * fiveMinutes;
  const sent = await sendTrip(services.trips.send, requester, {
    reservationType: "REGULAR",
    runType: "Airport",
    passengerCount: "1",
    luggageCount: "2",
    preferredVehicleType: "SEDAN",
    locations: {
      pickup: {
        locationType: "airport",
        address: "JFK",
        landmark: "John F. Kennedy International Airport",
        time: instant(landing + PICKUP_AFTER_LANDING_MIN * 60_000),
        flightInfo: { ...FLIGHT, scheduledArrival: instant(landing) },
      },
      dropOff: { locationType: "address", address: "200 Park Ave, New York, NY 10166", lat: "40.7536", lon: "-73.9767" },
    },
    passengers: [{ firstName: "Grace", lastName: "Hopper" }],
    notes: [{ message: "Demo trip: the sandbox reports flight BA117 late a few minutes after the start", context: "DRIVER" }],
    affiliateReservation: { ...DEMO_FLIGHT, action: "NEW" },
  });
  return sent.transactionId;
}
