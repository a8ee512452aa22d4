import { Elysia } from "elysia";
import { platformRoute } from "../platform-route";

/** GNet's documented help URL: `/Platform.svc/help` (any letter case, folded like every platform path) leads to the API docs. */
export function platformHelp() {
  return new Elysia({ name: "platform-help" }).use((app) =>
    platformRoute(
      "/help",
      (path, doc) =>
        app.get(path, () => new Response(null, { status: 302, headers: { location: "/docs" } }), {
          detail: {
            tags: ["Platform"],
            summary: "GNet's help URL: redirects to the API documentation",
            description: "Answers 302 with `Location: /docs` (the interactive API documentation), in any letter case of the path. No credential.",
            security: [],
            responses: { 302: { description: "Redirect to /docs", headers: { Location: { description: "/docs", schema: { type: "string" } } } } },
            ...doc,
          },
        }),
      "",
    ),
  );
}
