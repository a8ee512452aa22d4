import { expect, test } from "bun:test";
import { createHarness } from "../support/harness";

/** Every unbounded string or list the OpenAPI document lets a client send, as "<route> <where>". */
function unbounded(schema: any, where: string, out: string[]): void {
  if (!schema || typeof schema !== "object") return;
  for (const member of schema.anyOf ?? schema.oneOf ?? []) unbounded(member, where, out);
  if (schema.type === "string" && schema.maxLength === undefined && schema.const === undefined && !schema.enum) out.push(`${where}: string without maxLength`);
  if (schema.type === "array") {
    if (schema.maxItems === undefined) out.push(`${where}: array without maxItems`);
    unbounded(schema.items, `${where}[]`, out);
  }
  for (const [key, value] of Object.entries<any>(schema.properties ?? {})) unbounded(value, `${where}.${key}`, out);
}

test("caps: every string and list in every request body, path and query has a documented upper bound", async () => {
  const h = createHarness();
  const spec = (await h.request("GET", "/docs/json")).body;
  const out: string[] = [];
  let checked = 0;
  for (const [path, byMethod] of Object.entries<any>(spec.paths))
    for (const [method, op] of Object.entries<any>(byMethod)) {
      const route = `${method.toUpperCase()} ${path}`;
      // Headers are bounded by the HTTP server's header limit; Idempotency-Key (≤ 255) and tokens (≤ 4096) in code.
      for (const p of op.parameters ?? []) if (p.in !== "header") (checked++, unbounded(p.schema, `${route} ${p.in}:${p.name}`, out));
      const body = op.requestBody?.content?.["application/json"]?.schema;
      if (body) (checked++, unbounded(body, `${route} body`, out));
    }
  h.close();
  expect(checked).toBeGreaterThan(25);
  expect(out).toEqual([]);
});
