import { describe, expect, test } from "bun:test";
import { TargetGate } from "../../../adapters/delivery/target-gate";

const options = { perTarget: 2, perOwner: 2, failureThreshold: 3, openSeconds: 30, slowSeconds: 5 };

describe("TargetGate", () => {
  test("a company's endpoints share one limit, however many targets it has", () => {
    const gate = new TargetGate(options);
    gate.acquire("http://a.example", "ACME");
    gate.acquire("http://b.example", "ACME");
    expect(gate.admit("http://c.example", "ACME", 0)).toEqual({ go: false, busy: true });
    expect(gate.admit("http://c.example", "OTHER", 0)).toEqual({ go: true });
    gate.release("http://a.example", "ACME", true, 0.1, 0);
    expect(gate.inFlightOf("ACME")).toBe(1);
    expect(gate.admit("http://c.example", "ACME", 0)).toEqual({ go: true });
  });

  test("answers slower than slowSeconds count as failures and open the circuit; a timely one resets the count", () => {
    const gate = new TargetGate(options);
    const slowly = (seconds: number, now: number) => {
      gate.acquire("http://slow.example", "SLOW");
      gate.release("http://slow.example", "SLOW", true, seconds, now);
    };
    slowly(6, 10);
    slowly(6, 20);
    slowly(1, 30);
    slowly(6, 40);
    slowly(6, 50);
    expect(gate.isOpen("http://slow.example", 51)).toBe(false);
    slowly(9, 60);
    expect(gate.isOpen("http://slow.example", 61)).toBe(true);
    expect(gate.admit("http://slow.example", "SLOW", 61)).toEqual({ go: false, busy: false, until: 90 });
    expect(gate.inFlightOf("SLOW")).toBe(0);
  });
});
