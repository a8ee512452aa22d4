import { Elysia, t } from "elysia";
import { ownCompany, type OwnCompanyDeps } from "../../../domain/usecases/own-company";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";

const OwnCompany = t.Object({
  netid: t.String({ examples: ["DEMO-PLATFORM"] }),
  name: t.String({ examples: ["Demo Booking Platform"] }),
  coType: t.String({ description: "IO: an operator that runs vehicles; CO: a company that books rides", examples: ["CO"] }),
  plan: t.String({ examples: ["PROFESSIONAL"] }),
  sandbox: t.Boolean({ description: "A sandbox company's trips are answered by a simulated dispatcher (confirm, assign, drive, close within a minute)" }),
});

/** `GET /api/company`: the caller's own company, for a console or a client to know whom it is signed in as. */
export function coreCompany(deps: OwnCompanyDeps, auth: Authenticator) {
  return new Elysia({ name: "core-company", prefix: "/api" })
    .use(authMacros(auth))
    .get("/company", async ({ caller }) => ({ success: true as const, data: await ownCompany(deps, caller) }), {
      anyAuth: true,
      response: { 200: t.Object({ success: t.Literal(true), data: OwnCompany }), ...errors(401, 404) },
      detail: {
        tags: ["Accounts"],
        summary: "Your company",
        description:
          "The company of the credential (`Authorization: Bearer <core JWT>` or the platform header `token`): " +
          "netid, name, type (IO operator or CO booking company), plan and whether it is a sandbox. The console " +
          "lands a booking company on its bookings and marks a sandbox.",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    });
}
