import { Elysia, t } from "elysia";
import type { ChauffeurTracking } from "../../../domain/usecases/track-chauffeur";
import { authMacros, type Authenticator } from "../auth";
import { platformRoute, tokenOperation } from "../platform-route";
import { documentedResponses, errors, ResNoParams, TransactionIdParams } from "../schemas";
import * as docs from "./tracking.docs";

const Location = t.Object({
  transactionId: t.String(),
  chfId: t.String({ description: "The chauffeur's id (driverId of the push, or the chauffeur assigned)" }),
  chfName: t.String(),
  code: t.String({ description: "The booking's status", examples: ["EN_ROUTE"] }),
  griddID: t.String(),
  location: t.Object({ lat: t.Number(), lon: t.Number() }),
  picURL: t.String(),
  timestamp: t.String({ description: "ISO 8601: when the fix was taken (or received)" }),
});

const example = {
  transactionId: "0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20",
  chfId: "CH-12",
  chfName: "Sam Lee",
  code: "EN_ROUTE",
  griddID: "GRD-7781",
  location: { lat: 42.3656, lon: -71.0096 },
  picURL: "",
  timestamp: "2025-12-11T21:10:00Z",
};

const LocationExample = t.Object(Location.properties, { examples: [example] });
const Locations = t.Array(t.Object({ resNo: t.String(), ...Location.properties }));
const pullErrors = errors(400, 401, 404);

/** GNet's position pulls: where the chauffeur of a booking is. */
export function platformTracking(tracking: ChauffeurTracking, auth: Authenticator) {
  return new Elysia({ name: "platform-tracking" })
    .use(authMacros(auth))
    .use((app) =>
      platformRoute("/getChauffeurLocationByTransactionId/:transactionId", (path, doc) =>
        app.get(
          path,
          ({ caller, params }) => tracking.locate(caller, params.transactionId),
          tokenOperation(
            doc,
            { params: TransactionIdParams },
            { responses: documentedResponses({ 200: LocationExample, ...pullErrors }), ...docs.byTransactionIdDoc },
          ),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/getChauffeurLocationByResNo/:netid/:resNo", (path, doc) =>
        app.get(
          path,
          ({ caller, params }) => tracking.locateByResNo(caller, params.netid, params.resNo),
          tokenOperation(doc, { params: ResNoParams }, { responses: documentedResponses({ 200: Location, ...pullErrors }), ...docs.byResNoDoc }),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/getChauffeurLocationByResNoArray/:netid/:resNos", (path, doc) =>
        app.get(
          path,
          ({ caller, params }) => tracking.locateByResNos(caller, params.netid, params.resNos),
          tokenOperation(
            doc,
            {
              params: t.Object({
                netid: ResNoParams.properties.netid,
                resNos: t.String({
                  minLength: 1,
                  maxLength: 4000,
                  description: "1–50 reservation numbers of that party, separated by commas",
                  examples: ["BW-1,BW-2"],
                }),
              }),
            },
            { responses: documentedResponses({ 200: Locations, ...pullErrors }), ...docs.byResNoArrayDoc },
          ),
        ),
      ),
    );
}
