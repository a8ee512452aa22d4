import { ValidationError, type FieldError } from "../../domain/errors";

// docs/integration.md#errors: a 400 lists every failing field. A route's body schema checks types before its handler runs, so a
// body with one wrong-typed field and another field that breaks a domain rule would name only the first. A route
// that registers its domain check here (`transform: alongTypeErrors(check)`) has that check run too when the schema
// refuses the body, on the body without its wrong-typed members; its errors join the schema's, one per field.

type BodyCheck = (body: unknown) => FieldError[];

/** The body and domain check of each request whose route registered one, run only if the body fails its schema. */
const pending = new WeakMap<Request, { body: unknown; check: BodyCheck }>();

/** A route's `transform` hook: keeps the body and the route's domain check for the validation answer. */
export function alongTypeErrors(check: BodyCheck) {
  return ({ request, body }: { request: Request; body: unknown }): void => {
    pending.set(request, { body, check });
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/**
 * The body without the members at `paths` ("a.b.0.c"): what the domain check sees, so it never trips over a wrong
 * type. A path that goes on past what the body holds (a union's branch, "notes.0") removes the member it reached.
 */
function without(body: unknown, paths: string[]): unknown {
  if (!isRecord(body)) return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const path of paths) {
    const keys = path.split(".");
    let holder = copy;
    let i = 0;
    for (; i < keys.length - 1; i++) {
      const next = holder[keys[i]];
      if (!isRecord(next) || !Object.hasOwn(next, keys[i + 1])) break;
      holder = next as Record<string, unknown>;
    }
    delete holder[keys[i]];
  }
  return copy;
}

/** A field's path with its array indexes in brackets: the schema's "airports.1" is the domain's "airports[1]". */
const bracketed = (field: string) => field.replace(/\.(\d+)(?=\.|\[|$)/g, "[$1]");

/** Whether `field` is `named` or inside it ("airports[0]" and "airports.0" are inside "airports"). */
function within(field: string, named: string): boolean {
  const [f, n] = [bracketed(field), bracketed(named)];
  return f === n || f.startsWith(`${n}.`) || f.startsWith(`${n}[`);
}

/**
 * The schema's field errors of a refused body, followed by the route's domain errors for every other field (none
 * when the route registered no check, or the check failed: the schema's answer stands alone then).
 */
export function withDomainErrors(request: Request, schemaErrors: FieldError[]): FieldError[] {
  const kept = pending.get(request);
  if (!kept) return schemaErrors;
  pending.delete(request);
  let more: FieldError[];
  try {
    more = kept.check(without(kept.body, schemaErrors.map((e) => e.field)));
  } catch {
    return schemaErrors;
  }
  const out = [...schemaErrors];
  for (const e of more) if (!out.some((named) => within(e.field, named.field) || within(named.field, e.field))) out.push(e);
  return out;
}

/** The field errors of a domain check that throws a ValidationError (none when it passes). */
export function thrownFieldErrors(check: () => unknown): FieldError[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
}
