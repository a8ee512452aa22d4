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

  test("an attempt that never contacted the target neither counts against it nor clears its failures", () => {
    const gate = new TargetGate(options);
    const end = (answered: boolean | undefined) => {
      gate.acquire("http://t.example", "T");
      gate.release("http://t.example", "T", answered, 0.1, 100);
    };
    end(false);
    end(false);
    for (let i = 0; i < 5; i++) end(undefined);
    expect(gate.isOpen("http://t.example", 101)).toBe(false);
    end(false);
    expect(gate.isOpen("http://t.example", 101)).toBe(true);
  });
});
