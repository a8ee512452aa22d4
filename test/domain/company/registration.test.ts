import { describe, expect, test } from "bun:test";
import { netidCandidates, normalizePhone, validateRegistration, type RegistrationInput } from "../../../domain/company/registration";
import { parsePlan, planAtLeast } from "../../../domain/company/plan";

const never = () => false;
const valid: RegistrationInput = {
  name: "  Acme Limousine  ",
  mainEmail: "  Dispatch@Acme-Limo.Example ",
  password: "correct horse battery staple",
  confirmPassword: "correct horse battery staple",
  mainPhone: "+1 (212) 555-0123",
  coType: "io",
};

function fieldsOf(input: RegistrationInput, isCommon: (pw: string) => boolean = never): string[] {
  const r = validateRegistration(input, isCommon);
  return r.ok ? [] : r.errors.map((e) => e.field);
}

describe("validateRegistration", () => {
  test("normalises a valid registration", () => {
    const r = validateRegistration(valid, never);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ name: "Acme Limousine", mainEmail: "dispatch@acme-limo.example", mainPhone: "+12125550123", coType: "IO", dryRun: false });
    expect(r.value.netid).toBeUndefined();
  });

  test("reports every missing required field at once", () => {
    expect(fieldsOf({})).toEqual(["name", "mainEmail", "password", "confirmPassword", "mainPhone", "coType"]);
  });

  test.each([
    ["name", { name: "   " }],
    ["name", { name: "x".repeat(251) }],
    ["netid", { netid: "ab" }],
    ["netid", { netid: "x".repeat(33) }],
    ["netid", { netid: "-starts-with-dash" }],
    ["netid", { netid: "has space" }],
    ["mainEmail", { mainEmail: "not-an-email" }],
    ["mainEmail", { mainEmail: `${"a".repeat(250)}@b.co` }],
    ["mainEmail", { mainEmail: "\ud800@b.co" }],
    ["password", { password: "short", confirmPassword: "short" }],
    ["password", { password: "x".repeat(101), confirmPassword: "x".repeat(101) }],
    ["password", { password: "dispatch@acme-limo.example", confirmPassword: "dispatch@acme-limo.example" }],
    ["password", { netid: "ACME-LIMO-NYC", password: "acme-limo-nyc", confirmPassword: "acme-limo-nyc" }],
    ["confirmPassword", { confirmPassword: "something else entirely" }],
    ["mainPhone", { mainPhone: "12" }],
    ["mainPhone", { mainPhone: "2125550123" }],
    ["countryCode", { countryCode: "XX" }],
    ["coType", { coType: "XX" }],
    ["address", { address: "a".repeat(501) }],
    ["notes", { notes: "n".repeat(2001) }],
    ["mode", { mode: "maybe" }],
  ] as const)("rejects an invalid %s", (field, override) => {
    expect(fieldsOf({ ...valid, ...override })).toEqual([field]);
  });

  test("rejects a common password", () => {
    expect(fieldsOf(valid, (pw) => pw === valid.password)).toEqual(["password"]);
  });

  test("a national phone number is accepted with its countryCode", () => {
    const r = validateRegistration({ ...valid, mainPhone: "020 7946 0958", countryCode: "gb" }, never);
    expect(r.ok && r.value.mainPhone).toBe("+442079460958");
  });

  test("dry mode is recognised case-insensitively", () => {
    const r = validateRegistration({ ...valid, mode: "DRY" }, never);
    expect(r.ok && r.value.dryRun).toBe(true);
  });

  test("a given netid is kept as sent", () => {
    const r = validateRegistration({ ...valid, netid: "Acme_Limo-1" }, never);
    expect(r.ok && r.value.netid).toBe("Acme_Limo-1");
  });
});

describe("normalizePhone", () => {
  test("E.164 from international and national forms", () => {
    expect(normalizePhone("+33 1 42 68 53 00")).toEqual({ e164: "+33142685300" });
    expect(normalizePhone("(212) 555-0123", "US")).toEqual({ e164: "+12125550123" });
    expect("error" in normalizePhone("+1 555")).toBe(true);
  });
});

describe("netidCandidates", () => {
  test("upper-cased, accent-free, hyphenated, then numeric suffixes", () => {
    const it = netidCandidates("Société Générale — Chauffeurs!");
    expect([it.next().value, it.next().value, it.next().value]).toEqual(["SOCIETE-GENERALE-CHAUFFEUR", "SOCIETE-GENERALE-CHAUFFEUR-2", "SOCIETE-GENERALE-CHAUFFEUR-3"]);
  });

  test("names without usable characters still give a valid netid", () => {
    expect(netidCandidates("東京").next().value).toBe("COMPANY");
    expect(netidCandidates("A").next().value).toBe("A-CO");
  });

  test("every candidate matches the netid rule", () => {
    for (const name of ["x", "A very long company name that goes on and on and on", "Ünïcödé Cars", "--"]) {
      const it = netidCandidates(name);
      for (let i = 0; i < 12; i++) expect(it.next().value).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/);
    }
  });
});

describe("plans", () => {
  test("FREE < PROFESSIONAL < ENTERPRISE", () => {
    expect(planAtLeast("FREE", "PROFESSIONAL")).toBe(false);
    expect(planAtLeast("PROFESSIONAL", "PROFESSIONAL")).toBe(true);
    expect(planAtLeast("ENTERPRISE", "PROFESSIONAL")).toBe(true);
    expect(planAtLeast("ENTERPRISE", "FREE")).toBe(true);
  });
  test("parsePlan is case-insensitive and rejects unknown names", () => {
    expect(parsePlan(" professional ")).toBe("PROFESSIONAL");
    expect(parsePlan("GOLD")).toBeUndefined();
  });
});
