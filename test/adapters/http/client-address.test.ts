import { describe, expect, test } from "bun:test";
import { clientAddress } from "../../../adapters/http/client-address";

const withForwarded = (value: string) => new Request("http://localhost/", { headers: { "x-forwarded-for": value } });

describe("client address", () => {
  test("by default X-Forwarded-For is ignored: a client cannot choose its address", () => {
    expect(clientAddress(withForwarded("203.0.113.9"), "127.0.0.1", false)).toBe("127.0.0.1");
  });

  test("behind a trusted proxy, the last entry (the one the proxy appended) counts, not the client's own claims", () => {
    expect(clientAddress(withForwarded("1.2.3.4, 198.51.100.7"), "10.0.0.1", true)).toBe("198.51.100.7");
    expect(clientAddress(withForwarded("198.51.100.7"), "10.0.0.1", true)).toBe("198.51.100.7");
  });

  test("without a usable header the socket address is used", () => {
    expect(clientAddress(new Request("http://localhost/"), "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientAddress(withForwarded("x".repeat(100)), "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientAddress(new Request("http://localhost/"), undefined, false)).toBe("unknown");
  });
});
