import { beforeEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const password = "correct horse battery staple";
const body = (over: Record<string, unknown> = {}) => ({
  name: "Acme Limousine",
  netid: "ACME-LIMO",
  mainEmail: "dispatch@acme-limo.example",
  password,
  confirmPassword: password,
  mainPhone: "+1 212 555 0123",
  coType: "IO",
  address: "1 Main St, New York",
  notes: "24/7 dispatch",
  ...over,
});
const register = (b: unknown) => h.request("POST", "/api/company/register", { body: b });
const count = (table: string) => h.count(table);

describe("POST /api/company/register", () => {
  test("registers a company and its first user, on the FREE plan", async () => {
    const res = await register(body());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { netid: "ACME-LIMO", name: "Acme Limousine", coType: "IO", plan: "FREE", uid: "ACME-LIMO" } });
    const [row] = await h.rows("SELECT main_email, main_phone, plan FROM companies WHERE netid = 'ACME-LIMO'");
    expect(row).toEqual({ main_email: "dispatch@acme-limo.example", main_phone: "+12125550123", plan: "FREE" });
    const [user] = await h.rows<{ uid: string; password_hash: string }>("SELECT uid, password_hash FROM users");
    expect(user.uid).toBe("ACME-LIMO");
    expect(user.password_hash).toStartWith("$argon2id$");
  });

  test("the first user logs in with the netid or the e-mail, case-insensitively", async () => {
    await register(body({ mainEmail: "  Dispatch@ACME-limo.example " }));
    for (const uid of ["ACME-LIMO", "acme-limo", "DISPATCH@acme-limo.example"]) {
      const res = await h.request("POST", "/api/token", { body: { uid, pw: password } });
      expect(res.status).toBe(200);
    }
  });

  test("generates a netid from the name, with a numeric suffix on collision", async () => {
    const a = await register(body({ netid: undefined }));
    const b = await register(body({ netid: undefined, mainEmail: "two@acme.example", mainPhone: "+12125550124" }));
    expect(a.body.data.netid).toBe("ACME-LIMOUSINE");
    expect(b.body.data.netid).toBe("ACME-LIMOUSINE-2");
  });

  test.each([
    ["name", { name: "" }],
    ["netid", { netid: "x" }],
    ["mainEmail", { mainEmail: "nope" }],
    ["password", { password: "short", confirmPassword: "short" }],
    ["password", { password: "password123", confirmPassword: "password123" }],
    ["password", { password: "dispatch@acme-limo.example", confirmPassword: "dispatch@acme-limo.example" }],
    ["confirmPassword", { confirmPassword: "different but long" }],
    ["mainPhone", { mainPhone: "555-0123" }],
    ["mainPhone", { mainPhone: "+1 000" }],
    ["coType", { coType: "OPERATOR" }],
    ["address", { address: "a".repeat(501) }],
    ["notes", { notes: "n".repeat(2001) }],
    ["mode", { mode: "test" }],
    ["countryCode", { countryCode: "ZZ" }],
  ])("400 for an invalid %s, naming it, and nothing saved", async (field, over) => {
    const res = await register(body(over));
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    expect(res.body.message).toContain(field);
    expect(await count("companies")).toBe(0);
  });

  test("a wrong type is a 400 naming the field, not a 422", async () => {
    const res = await register(body({ name: 42, coType: ["IO"] }));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["coType", "name"]);
    expect(res.text).not.toContain("42");
  });

  test("reports several failing fields at once", async () => {
    const res = await register({ name: "", mainEmail: "bad", password: "x", coType: "Z" });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["name", "mainEmail", "password", "confirmPassword", "mainPhone", "coType"]);
  });

  test("never echoes the submitted password", async () => {
    const res = await register(body({ password: "hunter2-secret-pw", confirmPassword: "other-secret-pw!" }));
    expect(res.status).toBe(400);
    expect(res.text).not.toContain("hunter2-secret-pw");
    expect(res.text).not.toContain("other-secret-pw!");
  });

  test("a national phone number needs countryCode, and with it is stored as E.164", async () => {
    expect((await register(body({ mainPhone: "(212) 555-0123" }))).status).toBe(400);
    const res = await register(body({ mainPhone: "(212) 555-0123", countryCode: "US" }));
    expect(res.status).toBe(200);
    expect((await h.rows("SELECT main_phone FROM companies"))[0]).toEqual({ main_phone: "+12125550123" });
  });

  describe("duplicates are 409 naming the field", () => {
    beforeEach(async () => {
      expect((await register(body())).status).toBe(200);
    });
    test("netid, case-insensitively", async () => {
      const res = await register(body({ netid: "acme-limo", mainEmail: "x@y.example", mainPhone: "+12125550999" }));
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, code: "ALREADY_REGISTERED", field: "netid" });
    });
    test("e-mail, after normalisation", async () => {
      const res = await register(body({ netid: "OTHER", mainEmail: " DISPATCH@acme-limo.EXAMPLE", mainPhone: "+12125550999" }));
      expect(res.status).toBe(409);
      expect(res.body.field).toBe("mainEmail");
    });
    test("phone, after normalisation", async () => {
      const res = await register(body({ netid: "OTHER", mainEmail: "x@y.example", mainPhone: "(212) 555-0123", countryCode: "US" }));
      expect(res.status).toBe(409);
      expect(res.body.field).toBe("mainPhone");
    });
    test("dry mode checks uniqueness too", async () => {
      const res = await register(body({ mode: "dry" }));
      expect(res.status).toBe(409);
    });
  });

  describe("dry mode", () => {
    test("validates, answers dryRun, and writes nothing", async () => {
      const before = h.db.$client.query("SELECT count(*) AS n FROM sqlite_master").get();
      const res = await register(body({ mode: "dry" }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, dryRun: true, data: { netid: "ACME-LIMO", name: "Acme Limousine", coType: "IO", plan: "FREE", uid: "ACME-LIMO" } });
      expect(await count("companies")).toBe(0);
      expect(await count("users")).toBe(0);
      expect(h.db.$client.query("SELECT count(*) AS n FROM sqlite_master").get()).toEqual(before);
      expect((await h.request("POST", "/api/token", { body: { uid: "ACME-LIMO", pw: password } })).status).toBe(401);
    });
    test("reports the same validation errors as live mode", async () => {
      const res = await register(body({ mode: "dry", mainEmail: "bad" }));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe("mainEmail");
    });
  });

  test("an e-mail already used by any user is taken", async () => {
    await h.execUnchecked("INSERT INTO users (uid, uid_lower, netid, email, password_hash, created_at) VALUES ('GHOST', 'ghost', 'NOPE', 'ghost@x.example', 'h', 0)");
    const res = await register(body({ mainEmail: "ghost@x.example" }));
    expect(res.status).toBe(409);
    expect(res.body.field).toBe("mainEmail");
    expect(await count("companies")).toBe(0);
  });

  test("company and first user are written in one transaction: a failing user insert rolls back the company", async () => {
    await register(body());
    const company = { netid: "SECOND", name: "Second", coType: "IO" as const, plan: "FREE" as const, mainEmail: "second@x.example", mainPhone: "+12125550777", address: null, notes: null, createdAt: 1 };
    // The user's uid clashes with the existing first user: the second insert fails after the company insert.
    const attempt = h.services.companies.createWithFirstUser(company, { uid: "ACME-LIMO", netid: "SECOND", email: "second@x.example", passwordHash: "h", createdAt: 1 });
    await expect(attempt).rejects.toMatchObject({ code: "ALREADY_REGISTERED" });
    expect(await count("companies")).toBe(1);
  });
});
