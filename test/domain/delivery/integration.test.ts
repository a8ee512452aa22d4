import { describe, expect, test } from "bun:test";
import { validateIntegrationPatch } from "../../../domain/delivery/integration";

describe("validateIntegrationPatch", () => {
  test("accepts http(s) URLs, luggage modes and credentials; null clears", () => {
    const r = validateIntegrationPatch({ deliveryUrl: " https://partner.example/farm-in ", luggage: "NATIVE", webhookUrl: null, deliveryAuth: { username: "u", password: "p" } });
    expect(r).toEqual({ ok: true, patch: { deliveryUrl: "https://partner.example/farm-in", luggage: "native", webhookUrl: null, deliveryAuth: { username: "u", password: "p" } } });
  });
  test("reports every bad field", () => {
    const r = validateIntegrationPatch({ deliveryUrl: "ftp://x", webhookUrl: "not a url", luggage: "maybe", deliveryAuth: { username: "a:b", password: "" } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field)).toEqual(["deliveryUrl", "webhookUrl", "deliveryAuth.username", "deliveryAuth.password", "luggage"]);
  });
  test("credentials inside the URL are refused", () => {
    const r = validateIntegrationPatch({ deliveryUrl: "https://user:pw@partner.example/" });
    expect(r.ok).toBe(false);
  });
});
