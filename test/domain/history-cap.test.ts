import { describe, expect, test } from "bun:test";
import { capChangeLogs, capTransactionErrors, MAX_CHANGE_LOGS, MAX_TRANSACTION_ERRORS, TRIMMED } from "../../domain/history-cap";

const log = (i: number) => ({ timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, changeSource: "provider", changeDesc: `change ${i}` });
const error = (i: number) => ({ timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, errCode: "DELIVERY_ATTEMPT_FAILED", errDesc: `error ${i}` });

describe("history caps", () => {
  test("a short history is kept as it is", () => {
    const logs = Array.from({ length: MAX_CHANGE_LOGS }, (_, i) => log(i));
    expect(capChangeLogs(logs)).toBe(logs);
  });

  test("past the cap the newest entries stay and the first says how many were dropped, across repeated trims", () => {
    let logs = capChangeLogs(Array.from({ length: MAX_CHANGE_LOGS + 50 }, (_, i) => log(i)));
    expect(logs).toHaveLength(MAX_CHANGE_LOGS);
    expect(logs[0]).toMatchObject({ changeSource: TRIMMED, changeDesc: "51 earlier changes not kept" });
    expect(logs.at(-1)!.changeDesc).toBe(`change ${MAX_CHANGE_LOGS + 49}`);
    expect(logs[1].changeDesc).toBe("change 51");
    // One change more at a time (STOP → STOP forever): the size holds and the count grows by one each.
    for (let i = 0; i < 10; i++) logs = capChangeLogs([...logs, log(1000 + i)]);
    expect(logs).toHaveLength(MAX_CHANGE_LOGS);
    expect(logs[0].changeDesc).toBe("61 earlier changes not kept");
    expect(logs.at(-1)!.changeDesc).toBe("change 1009");
  });

  test("transactionErrors are capped the same way", () => {
    const errors = capTransactionErrors(Array.from({ length: MAX_TRANSACTION_ERRORS * 3 }, (_, i) => error(i)));
    expect(errors).toHaveLength(MAX_TRANSACTION_ERRORS);
    expect(errors[0]).toMatchObject({ errCode: TRIMMED, errDesc: `${MAX_TRANSACTION_ERRORS * 2 + 1} earlier errors not kept` });
    expect(errors.at(-1)!.errDesc).toBe(`error ${MAX_TRANSACTION_ERRORS * 3 - 1}`);
  });
});
