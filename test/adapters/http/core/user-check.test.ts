import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";

let h: Harness;
let clock: ManualClock;
let company: { netid: string; email: string };

beforeEach(async () => {
  clock = new ManualClock();
  h = createHarness({ clock });
  company = await h.registerCompany({ mainEmail: "Dispatch@Acme-Limo.example", mainPhone: "+1 212 555 0101" });
});
afterEach(() => h.close());

const check = (query: string) => h.request("GET", `/api/user/check?${query}`);

describe("GET /api/user/check", () => {
  test("finds a registered e-mail in any case and spacing, and a phone in any formatting", async () => {
    const res = await check(`email=${encodeURIComponent("  DISPATCH@acme-limo.EXAMPLE ")}&phone=${encodeURIComponent("(212) 555-0101")}&countryCode=us`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { query: "email", found: true, result: "dispatch@acme-limo.example" },
      { query: "phone", found: true, result: "+12125550101" },
    ]);
    for (const phone of ["+1 212-555-0101", "+1.212.555.0101", "+12125550101"])
      expect((await check(`phone=${encodeURIComponent(phone)}`)).body).toEqual([{ query: "phone", found: true, result: "+12125550101" }]);
  });

  test("a username is a login (netid or uid), case-insensitive; unknown keys are not found and nothing about the account is shown", async () => {
    const res = await check(`username=${company.netid.toLowerCase()}&email=nobody@example.com&phone=${encodeURIComponent("+1 212 555 0199")}`);
    expect(res.body).toEqual([
      { query: "username", found: true, result: company.netid.toLowerCase() },
      { query: "email", found: false, result: "nobody@example.com" },
      { query: "phone", found: false, result: "+12125550199" },
    ]);
    expect(res.text).not.toContain(company.netid);
    expect((await check("username=NO-SUCH-USER")).body).toEqual([{ query: "username", found: false, result: "no-such-user" }]);
  });

  test("no key, or a phone that is not one, is 400 naming the field", async () => {
    const none = await check("");
    expect([none.status, none.body.errors[0].field]).toEqual([400, "query"]);
    const national = await check("phone=2125550101");
    expect([national.status, national.body.errors[0].field]).toEqual([400, "phone"]);
    expect((await check("phone=hello")).body.errors[0].field).toBe("phone");
  });

  test("20 checks a minute per client address; the 21st is 429 with Retry-After, and the budget refills", async () => {
    for (let i = 0; i < 20; i++) expect((await check(`email=probe${i}@example.com`)).status).toBe(200);
    const throttled = await check("email=probe21@example.com");
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe("RATE_LIMITED");
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Refused checks are still refused while the minute lasts.
    expect((await check(`email=${encodeURIComponent(company.email)}`)).status).toBe(429);
    clock.advance(60);
    expect((await check(`email=${encodeURIComponent(company.email)}`)).body[0].found).toBe(true);
  });
});
