import { describe, expect, test } from "bun:test";
import type { Booking, Fee } from "../../../domain/trips/booking";
import { quotedPrice } from "../../../domain/trips/decisions";
import { ValidationError } from "../../../domain/errors";

const option = (code: string, fee: string): Fee => ({ type: "OTHER", code, name: code, fee, currency: "USD" });
const quoteWith = (fees: Fee[], totalAmount: string | null) => ({ trip: { fees }, totalAmount }) as unknown as Booking;

describe("the price a quote's conversion books", () => {
  test("no code: the first option and its fee", () => {
    const got = quotedPrice(quoteWith([option("sedan", "80.00"), option("van", "100.00")], "80.00"), undefined);
    expect(got.fees).toEqual([option("sedan", "80.00")]);
    expect(got.totalAmount).toBe("80.00");
  });

  test("a code: that option; an unknown code: a validation error naming fees[0].code", () => {
    const quote = quoteWith([option("sedan", "80.00"), option("van", "100.00")], "80.00");
    expect(quotedPrice(quote, "van")).toMatchObject({ fees: [option("van", "100.00")], totalAmount: "100.00" });
    try {
      quotedPrice(quote, "bus");
      throw new Error("no error");
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).errors.map((x) => x.field)).toEqual(["fees[0].code"]);
    }
  });

  test("a quote a partner priced with plain fee lines keeps its lines and total; one without options keeps no price", () => {
    const lines: Fee[] = [{ type: "BASE", fee: "90.00" }, { type: "GRATUITY", fee: "18.00" }];
    expect(quotedPrice(quoteWith(lines, "108.00"), undefined)).toEqual({ fees: lines, totalAmount: "108.00" });
    expect(quotedPrice(quoteWith([], null), undefined)).toEqual({ fees: [], totalAmount: null });
  });
});
