import type { Services } from "../services";
import { sendTrip } from "../../domain/usecases/send-trip";
import { providerUpdateStatus } from "../../domain/usecases/manage-trip";

/** The demo platform's trip whose chauffeur moves (so the tracking operations show something at once). */
export const DEMO_TRIP = { requesterId: "DEMO-PLATFORM", requesterResNo: "DEMO-TRIP-1", providerId: "ACME-LIMO" } as const;

/** JFK arrivals → Midtown Manhattan, the chauffeur's loop. */
const ROUTE: ReadonlyArray<[number, number]> = [
  [40.6413, -73.7781], [40.6598, -73.8097], [40.6773, -73.8317], [40.6938, -73.8511], [40.7076, -73.8712],
  [40.7181, -73.8953], [40.7284, -73.9208], [40.7398, -73.9496], [40.7466, -73.9703], [40.7527, -73.9772],
];
const STEP_MS = 5000;

/**
 * Makes sure the demo trip exists and is under way (booked by the demo platform with Acme Limousine, the chauffeur
 * en route), then moves its chauffeur along a loop from JFK into Manhattan, one step every 5 s. Returns a stop
 * function. Only for demo data: the positions are the exchange's own, not a provider's.
 */
export async function startDemoChauffeur(services: Services, stepMs = STEP_MS): Promise<() => void> {
  const [requester, provider] = await Promise.all([services.users.findCaller(DEMO_TRIP.requesterId), services.users.findCaller(DEMO_TRIP.providerId)]);
  if (!requester || !provider) return () => {};
  const existing = await services.trips.manage.bookings.findByResNo("requester", DEMO_TRIP.requesterId, DEMO_TRIP.requesterResNo);
  const pickup = new Date(Date.now() + 3600_000).toISOString().slice(0, 19);
  const sent = existing ?? await sendTrip(services.trips.send, requester, {
    reservationType: "REGULAR",
    runType: "Airport",
    passengerCount: "2",
    luggageCount: "2",
    preferredVehicleType: "SUV",
    locations: {
      pickup: { locationType: "airport", address: "JFK", landmark: "John F. Kennedy International Airport", time: pickup },
      dropOff: { locationType: "address", address: "20 W 34th St, New York, NY 10001", lat: "40.7484", lon: "-73.9857" },
    },
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    notes: [{ message: "Demo trip: the chauffeur moves every 5 seconds", context: "DRIVER" }],
    affiliateReservation: { ...DEMO_TRIP, action: "NEW" },
  });
  const booking = sent ? await services.trips.manage.bookings.findById(sent.transactionId) : undefined;
  if (!booking) return () => {};
  if (booking.status === "BOOKING_REQUEST") {
    await providerUpdateStatus(services.trips.manage, provider, booking.transactionId, {
      status: "EN_ROUTE",
      providerResNo: "ACME-DEMO-1",
      chauffeur: { chauffeurId: "CH-DEMO", firstName: "Sam", lastName: "Lee" },
      vehicle: { vehicleType: "SUV", make: "Cadillac", model: "Escalade", plateNo: "DEMO 1" },
    });
  }
  let step = 0;
  const move = () => {
    const [lat, lon] = ROUTE[step++ % ROUTE.length];
    services.tracking.recordFromUpdate(booking.transactionId, { lat, lon }, { chfId: "CH-DEMO", chfName: "Sam Lee" });
    // The requester hears of it as of a pushed position (a location webhook at most every 30 s).
    void services.tracking.announceMoved(booking.transactionId).catch(() => {});
  };
  move();
  const timer = setInterval(move, stepMs);
  timer.unref();
  return () => clearInterval(timer);
}
