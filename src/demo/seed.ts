import type { Services } from "../services";
import { registerCompany } from "../../domain/usecases/register-company";
import { importFleet } from "../../domain/usecases/manage-fleet";
import { acceptPartnership, requestPartnership, setPartnerVehicleTypes } from "../../domain/usecases/partnerships";
import type { Caller } from "../../domain/ports";
import { putRateCard } from "../../domain/usecases/rate-cards";
import { updateIntegration } from "../../domain/usecases/integration";
import { DEMO_FLEET_AIRPORTS, DEMO_FLEET_SIZE, demoFleet } from "./fleet";
import { DEMO_RATE_CARDS } from "./rates";

/** The demo login printed at start-up and shown in the README. */
export const DEMO_LOGIN = { uid: "DEMO-PLATFORM", pw: "tripswitch-demo-2026" } as const;

const DEMO_COMPANIES = [
  { netid: "DEMO-PLATFORM", name: "Demo Booking Platform", coType: "CO", mainEmail: "demo@tripswitch.example", mainPhone: "+12025550100" },
  { netid: "ACME-LIMO", name: "Acme Limousine", coType: "IO", mainEmail: "dispatch@acme-limo.example", mainPhone: "+12125550101" },
  { netid: "BLUE-SKY-CARS", name: "Blue Sky Cars", coType: "IO", mainEmail: "ops@bluesky-cars.example", mainPhone: "+442079460102" },
  { netid: "EUROCHAUFFEUR", name: "EuroChauffeur", coType: "IO", mainEmail: "booking@eurochauffeur.example", mainPhone: "+33142680103" },
  { netid: "HUDSON-CARS", name: "Hudson Car Service", coType: "IO", mainEmail: "dispatch@hudson-cars.example", mainPhone: "+12125550104" },
] as const;

/**
 * The operator that answers its trips by hand, as a real one does (not a sandbox): its requests wait for acceptance,
 * lapse or are declined, so a booking of it with a fallback shows the cascade (docs/terms.md#worked-example-a-booking-that-finds-a-car).
 */
const ANSWERS_BY_HAND: ReadonlySet<string> = new Set(["HUDSON-CARS"]);

/** Hudson's own terms (docs/terms.md#policies): free until a day before, half the fare from 3 h, and it answers within 15 min. */
const DEMO_POLICIES: Record<string, object> = {
  "HUDSON-CARS": {
    cancellation: [{ beforeMinutes: 1440, percent: 0 }, { beforeMinutes: 180, percent: 50 }, { beforeMinutes: 0, percent: 100 }],
    acceptWithinMinutes: 15,
  },
};

/** The demo platform's partners (EuroChauffeur is not one: it shows how a non-partner looks). */
const DEMO_PARTNERS = ["ACME-LIMO", "BLUE-SKY-CARS"] as const;
/** How the demo operators read the platform's vehicle codes (its booking form says EXEC_SEDAN, LUXURY_SUV…). */
const DEMO_VEHICLE_TYPES = { EXEC_SEDAN: "SEDAN_LUXURY", LUXURY_SUV: "SUV", MINIVAN: "VAN_MINI", STRETCH: "LIMO" } as const;

/**
 * Loads the demo companies (all with the published demo password) and their fleets — only into an empty
 * database, so a real installation never gets accounts anyone can log into. Returns true when it wrote anything.
 */
export async function seedDemo(services: Services): Promise<boolean> {
  if (!(await services.storage.isEmpty())) return false;
  let wrote = false;
  for (const c of DEMO_COMPANIES) {
    if (await services.companies.findByNetid(c.netid)) continue;
    await registerCompany(services.registration, { ...c, password: DEMO_LOGIN.pw, confirmPassword: DEMO_LOGIN.pw });
    // The demo operators answer trips by themselves (the simulated dispatcher), so a demo booking runs its course;
    // only when created, so `company set-sandbox <netid> off` sticks across restarts.
    if (c.coType === "IO" && !ANSWERS_BY_HAND.has(c.netid)) await services.sandboxes.setSandbox(c.netid, true);
    if (DEMO_POLICIES[c.netid]) await updateIntegration(services.integration, c.netid, { policies: DEMO_POLICIES[c.netid] });
    wrote = true;
  }
  await services.companies.setPlan("DEMO-PLATFORM", "PROFESSIONAL");
  for (const netid of Object.keys(DEMO_FLEET_AIRPORTS)) {
    const { total } = await services.fleet.listByNetid(netid, { limit: 1, offset: 0 });
    if (total > 0) continue;
    // Through the import use case, so the demo fleet obeys every rule a real one does.
    await importFleet(services.manageFleet, netid, demoFleet(netid, services.airports, DEMO_FLEET_SIZE[netid]));
    wrote = true;
  }
  // Each operator prices by its rate card (checked as PUT /api/company/rates checks it), so quotes carry a breakdown.
  for (const [netid, card] of Object.entries(DEMO_RATE_CARDS)) {
    if (await services.rates.rateCards.get(netid)) continue;
    await putRateCard(services.rates, netid, card);
    wrote = true;
  }
  for (const netid of DEMO_PARTNERS) if (await partner(services, "DEMO-PLATFORM", netid)) wrote = true;
  return wrote;
}

/** Makes two demo companies partners (the platform asks, the operator accepts) unless they are already. */
async function partner(services: Services, requester: string, provider: string): Promise<boolean> {
  const deps = services.partners;
  if (await deps.partnerships.find(requester, provider)) return false;
  const as = (netid: string): Caller => ({ uid: netid, netid, plan: "FREE" });
  await requestPartnership(deps, as(requester), provider);
  await acceptPartnership(deps, as(provider), requester);
  await setPartnerVehicleTypes(deps, as(provider), requester, DEMO_VEHICLE_TYPES);
  return true;
}
