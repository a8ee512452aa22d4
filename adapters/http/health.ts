import { Elysia, t } from "elysia";

/** Set once the database is migrated and the indexes are built. */
export interface Readiness {
  ready: boolean;
}

export function health(readiness: Readiness) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ success: true as const, status: "ok" as const }), {
      response: t.Object({ success: t.Literal(true), status: t.Literal("ok") }),
      detail: { tags: ["Health"], summary: "Liveness: 200 while the process lives", security: [] },
    })
    .get(
      "/readyz",
      ({ set }) => {
        if (readiness.ready) return { success: true as const, status: "ready" as const };
        set.status = 503;
        return { success: false as const, status: "starting" as const };
      },
      {
        response: {
          200: t.Object({ success: t.Literal(true), status: t.Literal("ready") }),
          503: t.Object({ success: t.Literal(false), status: t.Literal("starting") }),
        },
        detail: { tags: ["Health"], summary: "Readiness: 200 once migrated and indexed, 503 before", security: [] },
      },
    );
}
