import { describe, expect, test } from "bun:test";
import { createLogger } from "../../../adapters/logging";
import { AccessLog, type AccessRecord } from "../../../adapters/http/access-log";

const capture = () => {
  const lines: string[] = [];
  return { lines, logger: createLogger("info", { write: (chunk: string) => void lines.push(chunk) } as never) };
};
const withoutTime = (line: string) => line.replace(/"time":\d+,/, "");

describe("access log", () => {
  const records: AccessRecord[] = [
    { requestId: "0f8e2b7c-8a4c-4d0e-9a57-2f7d7a1f3b1c", method: "GET", route: "/api/search/fleet", path: "/api/search/fleet", company: "ACME-LIMO", status: 200, ms: 0.37 },
    { requestId: "abc", method: "POST", route: "/nope/\"quoted\"\\ünï\u0001", path: "/nope/\"quoted\"\\ünï\u0001", company: undefined, status: 404, ms: undefined },
  ];

  test("writes, after the request, the lines logger.info(fields, \"request\") writes, in one write per event-loop turn", async () => {
    const hand = capture();
    const log = new AccessLog(hand.logger);
    for (const r of records) log.record(r);
    expect(hand.lines).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(hand.lines).toHaveLength(1);
    const pino = capture();
    for (const r of records) pino.logger.info(r, "request");
    expect(hand.lines[0].split("\n").map(withoutTime)).toEqual(pino.lines.join("").split("\n").map(withoutTime));
  });

  test("formats nothing when the level leaves info out", async () => {
    const lines: string[] = [];
    const log = new AccessLog(createLogger("warn", { write: (chunk: string) => void lines.push(chunk) } as never));
    log.record(records[0]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
  });
});
