import { t } from "elysia";

// Shapes and size bounds only: the rules (required fields, counts, dates, amounts) run in the domain
// validator so that every failing field is reported at once.
export const str = (max: number, description?: string, example?: string) =>
  t.Optional(t.String({ maxLength: max, ...(description ? { description } : {}), ...(example !== undefined ? { examples: [example] } : {}) }));

/** A number GNet clients send as a JSON number or a string (stored as a string). */
export const numberOrText = (max: number, description: string, example?: string | number) =>
  t.Optional(t.Union([t.String({ maxLength: max }), t.Number()], { description, ...(example !== undefined ? { examples: [example] } : {}) }));

/** GNet's flags: "True"/"False" strings, or booleans. */
export const flag = (description: string) => t.Optional(t.Union([t.String({ maxLength: 16 }), t.Boolean()], { description, examples: ["True"] }));

/** Objects keep the members no schema names: they are stored and delivered verbatim. */
export const open = (description?: string) => ({ additionalProperties: true, ...(description ? { description } : {}) });

export const MAX_FEES = 50;
export const MAX_IMAGES = 10;
export const MAX_PHONES = 10;

export const Phone = t.Object({ number: str(64, "Required"), type: str(32, "e.g. mobile, landline", "mobile") }, open());
