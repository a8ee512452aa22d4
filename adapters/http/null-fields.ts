import type { TSchema } from "elysia";

interface SchemaShape {
  properties?: Record<string, TSchema>;
  required?: string[];
  items?: TSchema;
  anyOf?: TSchema[];
}

/**
 * Removes, in place, every `null` member that `schema` declares optional (GNet clients send null for "absent"),
 * at every depth the schema describes. Members the schema does not name are left as sent (they are kept
 * verbatim); a null on a required member stays, so validation names it.
 */
export function dropNullOptionals(schema: TSchema, value: unknown): void {
  if (value === null || typeof value !== "object") return;
  const shape = objectShape(schema as SchemaShape);
  if (Array.isArray(value)) {
    const items = shape?.items;
    if (items) for (const item of value) dropNullOptionals(items, item);
    return;
  }
  if (!shape?.properties) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const member = shape.properties[key];
    if (!member) continue;
    if (record[key] === null) {
      if (!shape.required?.includes(key)) delete record[key];
    } else dropNullOptionals(member, record[key]);
  }
}

/** The object (or array) schema inside a union such as `Object | Null`. */
function objectShape(schema: SchemaShape): SchemaShape | undefined {
  if (schema.properties || schema.items) return schema;
  return schema.anyOf?.map((s) => s as SchemaShape).find((s) => s.properties || s.items);
}
