import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { pathOf } from "../../../adapters/http/request-context";
import { createHarness } from "../../support/harness";

const h = createHarness({ maxBodyBytes: 2048 });

function expectEnvelope(body: any, code: string) {
  expect(body.success).toBe(false);
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.code).toBe(code);
}

describe("the error envelope", () => {
  test("malformed JSON is a 400, not a 422", async () => {
    const res = await h.request("POST", "/api/token", { raw: '{"uid": "a", ', headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "MALFORMED_JSON");
  });

  test("a body over MAX_BODY_BYTES is 413, whether declared or streamed", async () => {
    const big = JSON.stringify({ uid: "x".repeat(4000), pw: "y" });
    const declared = await h.request("POST", "/api/token", { raw: big, headers: { "content-type": "application/json", "content-length": String(big.length) } });
    expect(declared.status).toBe(413);
    expectEnvelope(declared.body, "PAYLOAD_TOO_LARGE");
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const streamed = await h.app.handle(new Request("http://localhost/api/token", { method: "POST", body: stream, headers: { "content-type": "application/json" } }));
    expect(streamed.status).toBe(413);
    expectEnvelope(await streamed.json(), "PAYLOAD_TOO_LARGE");
  });

  test("an unknown route is a JSON 404 on both surfaces", async () => {
    for (const path of ["/api/nothing-here", "/Platform.svc/nothingHere", "/"]) {
      const res = await h.request("GET", path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expectEnvelope(res.body, "ROUTE_NOT_FOUND");
    }
  });

  test("a non-JSON content type is refused with a 4xx envelope", async () => {
    const res = await h.request("POST", "/api/token", { raw: "uid=a&pw=b", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(415);
    expectEnvelope(res.body, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("invalid UTF-8 is a 400", async () => {
    const res = await h.request("POST", "/api/token", { raw: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "INVALID_ENCODING");
  });

  test("a JSON body of the wrong shape is a 400 listing the fields", async () => {
    const res = await h.request("POST", "/api/token", { body: [1, 2, 3] });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "VALIDATION_FAILED");
  });

  test("deeply nested JSON is refused at once (it used to cost seconds, gigabytes and sometimes a 500)", async () => {
    const big = createHarness();
    const deep = '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000);
    for (const [path, body] of [["/api/token", `{"uid":${deep},"pw":"x"}`], ["/api/fleet/import", deep], ["/api/company/register", `[${"[".repeat(50_000)}${"]".repeat(50_000)}]`]]) {
      const t0 = performance.now();
      const res = await big.request("POST", path, { raw: body, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, "JSON_TOO_DEEP");
      expect(performance.now() - t0).toBeLessThan(1000);
    }
    // Real bodies nest a few levels and pass.
    const shallow = await big.request("POST", "/api/token", { body: { uid: "nobody", pw: "x", extra: { a: { b: { c: [[[1]]] } } } } });
    expect(shallow.status).toBe(401);
    big.close();
  });

  test("a key that shadows a built-in method is a 400 (an object with a numeric toString used to be a 500)", async () => {
    const token = await h.request("POST", "/api/company/register", { raw: '{"name":{"toString":1},"mainEmail":"x"}', headers: { "content-type": "application/json" } });
    expect(token.status).toBe(400);
    expectEnvelope(token.body, "RESERVED_KEY");
    for (const key of ["__proto__", "constructor", "valueOf"]) {
      const res = await h.request("POST", "/api/token", { raw: `{"uid":"a","pw":"b","x":{"${key}":{"admin":true}}}`, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, "RESERVED_KEY");
    }
  });

  test("a NUL character in a body string or key, the path or the query is a 400 on either database, and changes nothing", async () => {
    for (const raw of ['{"uid":"a\\u0000b","pw":"NIL"}', '{"uid":"a","pw":"b","x":{"k\\u0000":1}}', '{"uid":"a","pw":"b","list":["ok",["\\u0000"]]}']) {
      const res = await h.request("POST", "/api/token", { raw, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, "NUL_CHARACTER");
    }
    const registered = await h.request("POST", "/api/company/register", {
      body: { name: "Nul\u0000Co", netid: "NULCO", mainEmail: "ops@nulco.example", password: "correct horse battery staple", confirmPassword: "correct horse battery staple", mainPhone: "+12125550199", coType: "CO" },
    });
    expect(registered.status).toBe(400);
    expectEnvelope(registered.body, "NUL_CHARACTER");
    expect((await h.request("GET", "/api/user/check?username=NULCO")).body).toEqual([{ query: "username", found: false, result: "nulco" }]);
    for (const path of ["/api/reservation/a%00b", "/api/user/check?username=a%00b", "/Platform.svc/getTripStatus/a%00b"]) {
      const res = await h.request("GET", path);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, "NUL_CHARACTER");
    }
    // An escaped backslash followed by "u0000" is no NUL: that login is simply wrong.
    expect((await h.request("POST", "/api/token", { raw: '{"uid":"a\\\\u0000b","pw":"NIL"}', headers: { "content-type": "application/json" } })).status).toBe(401);
  });

  test("an unexpected error is a 500 carrying only the request id; details stay out of the response", async () => {
    const app = new Elysia().use(h.app).get("/boom", () => {
      throw new Error("SQLITE_ERROR: no such table: secret_table at /srv/app/file.ts:12");
    });
    const res = await app.handle(new Request("http://localhost/boom", { headers: { "x-request-id": "req-123" } }));
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toEqual({ success: false, message: "Internal error", code: "INTERNAL", requestId: "req-123" });
    expect(res.headers.get("x-request-id")).toBe("req-123");
  });
});

describe("pathOf", () => {
  test("is URL's pathname for the URLs requests carry", () => {
    for (const url of [
      "http://localhost/Platform.svc/sendTrip/V1",
      "http://127.0.0.1:8080/api/search/fleet?lat=1&lon=2",
      "https://example.com:443/a/b#frag",
      "http://localhost/a?b=/c#d",
      "http://localhost/api/%7Efleet/x%20y",
      "http://localhost/",
      "http://[::1]:3000/api/token?x",
    ])
      expect({ url, path: pathOf(url) }).toEqual({ url, path: new URL(url).pathname });
  });
});

describe("X-Request-Id", () => {
  test("a valid incoming id is echoed, on success and on error", async () => {
    for (const path of ["/healthz", "/api/nope"]) {
      const res = await h.request("GET", path, { headers: { "x-request-id": "abc.DEF_123-x" } });
      expect(res.headers.get("x-request-id")).toBe("abc.DEF_123-x");
    }
  });
  test("an invalid one is replaced by a new UUID", async () => {
    for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
      const res = await h.request("GET", "/healthz", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });
});
