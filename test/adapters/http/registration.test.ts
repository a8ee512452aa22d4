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

describe("Unicode in e-mails and names", () => {
  const nfc = "jos\u00e9@acme-limo.example";
  const nfd = "jose\u0301@acme-limo.example";

  test("an e-mail composed (NFC) and decomposed (NFD) is one address: the second registration is 409 on mainEmail; either spelling logs in", async () => {
    expect((await register(body({ mainEmail: nfc }))).status).toBe(200);
    const again = await register(body({ netid: "OTHER-CO", mainEmail: nfd, mainPhone: "+12125550199" }));
    expect([again.status, again.body.code, again.body.field]).toEqual([409, "ALREADY_REGISTERED", "mainEmail"]);
    const [row] = await h.rows<{ main_email: string }>("SELECT main_email FROM companies");
    expect(row.main_email).toBe(nfc);
    for (const uid of [nfc, nfd, nfd.toUpperCase()]) expect((await h.request("POST", "/api/token", { body: { uid, pw: password } })).status).toBe(200);
    // The account check compares the same way.
    const check = await h.request("GET", `/api/user/check?email=${encodeURIComponent(nfd)}`);
    expect(check.body).toEqual([{ query: "email", found: true, result: nfc }]);
  });

  test("a punycode domain and its Unicode spelling are one address", async () => {
    expect((await register(body({ mainEmail: "ops@m\u00fcnchen-limo.example" }))).status).toBe(200);
    const again = await register(body({ netid: "OTHER-CO", mainEmail: "ops@xn--mnchen-limo-thb.example", mainPhone: "+12125550199" }));
    expect([again.status, again.body.field]).toEqual([409, "mainEmail"]);
  });

  test.each([
    ["Latin and Cyrillic mixed in one label", "dispatch@p\u0430ypal.com"],
    ["Cyrillic look-alikes of a Latin name", "dispatch@\u0430\u0440\u0440\u04cf\u0435.com"],
    ["the same, spelled in punycode", "dispatch@xn--80ak6aa92e.com"],
    ["Greek look-alikes", "dispatch@\u03bf\u03ba.com"],
  ])("a look-alike domain (%s) is a 400 naming mainEmail, and nothing is written", async (_, mainEmail) => {
    const res = await register(body({ mainEmail }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors).toEqual([{ field: "mainEmail", message: expect.stringContaining("could pass for another domain") }]);
    expect(await count("companies")).toBe(0);
  });

  test.each([["dispatch@m\u00fcnchen-limo.example"], ["\u043f\u043e\u0447\u0442\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444"], ["info@\u65e5\u672c\u8a9e.jp"]])("a real internationalised address is accepted: %s", async (mainEmail) => {
    expect((await register(body({ mainEmail }))).status).toBe(200);
  });

  test.each([
    ["a right-to-left override", "Acme \u202Eenizuomil", "U+202E"],
    ["a zero-width space", "Ac\u200Bme Limousine", "U+200B"],
    ["a byte-order mark", "Acme\uFEFF Limousine", "U+FEFF"],
    ["a stray zero-width joiner", "Acme \u200D Limousine", "U+200D"],
  ])("a name with %s is a 400 naming the field and the character", async (_, name, code) => {
    const res = await register(body({ name }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "name", message: expect.stringContaining(code) }]);
    const email = await register(body({ mainEmail: `dis\u200Bpatch@acme-limo.example` }));
    expect(email.body.errors).toEqual([{ field: "mainEmail", message: expect.stringContaining("U+200B") }]);
  });

  test("joiners inside a word (Persian, emoji) are part of the name", async () => {
    const res = await register(body({ name: "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 Limousine \ud83d\udc68\u200d\ud83d\udc69" }));
    expect(res.status).toBe(200);
  });
});

describe("blank-looking and line-breaking names, reserved netids (docs/security.md#booking-ownership-and-size, issue 37 N12)", () => {
  test.each([
    ["braille blanks only", "\u2800\u2800\u2800", "U+2800"],
    ["a braille blank inside", "Acme\u2800Limousine", "U+2800"],
    ["a line separator inside", "Acme\u2028Limousine", "U+2028"],
    ["a paragraph separator inside", "Acme\u2029Limousine", "U+2029"],
    ["a newline inside", "Acme\nLimousine", "U+000A"],
    ["a carriage return inside", "Acme\rLimousine", "U+000D"],
    ["a C1 next-line inside", "Acme\u0085Limousine", "U+0085"],
    ["Hangul choseong filler", "\u115F\u115F\u115F", "U+115F"],
    ["Hangul jungseong filler", "Acme\u1160", "U+1160"],
    ["Hangul filler", "\u3164\u3164", "U+3164"],
    ["halfwidth Hangul filler", "\uFFA0Acme", "U+FFA0"],
    ["a musical-symbol blank", "Acme \u{1D175}", "U+1D175"],
    ["a zero-width joiner alone", "Acme\u2060", "U+2060"],
    ["a left-to-right isolate", "Acme \u2066x", "U+2066"],
  ])("a company name with %s is a 400 naming name, and nothing is written", async (_, name, code) => {
    const res = await register(body({ name }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "name", message: expect.stringContaining(code) }]);
    expect(await count("companies")).toBe(0);
  });

  test("a name of spaces and punctuation only is refused; ideographic spaces around a real name are trimmed", async () => {
    const dots = await register(body({ name: ". - ." }));
    expect(dots.status).toBe(400);
    expect(dots.body.errors).toEqual([{ field: "name", message: "must contain at least one letter, digit or symbol" }]);
    const spaced = await register(body({ name: "\u3000\u00A0Acme Limousine\u3000" }));
    expect(spaced.status).toBe(200);
    expect(spaced.body.data.name).toBe("Acme Limousine");
  });

  test.each([["ADMIN"], ["admin"], ["Admin"], ["TripSwitch"], ["tripswitch"], ["SYSTEM"], ["Support"]])("the reserved netid %s is a 400 naming netid in any letter case", async (netid) => {
    const res = await register(body({ netid }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "netid", message: "is reserved: choose another" }]);
    expect(await count("companies")).toBe(0);
  });

  test("a name that would generate a reserved netid gets another one", async () => {
    const res = await register(body({ name: "Admin", netid: undefined }));
    expect(res.status).toBe(200);
    expect(res.body.data.netid).toBe("ADMIN-CO");
  });
});
