// Checks an HTTP answer against the OpenAPI document the service serves: the operation is found by method and path
// template, the status must be one the operation documents (or one the document's description says every route may
// answer), the media type one documented for that status, and the body must validate against its schema (JSON
// Schema 2020-12, as OpenAPI 3.1 writes it, formats included). An object may carry only the members its schema
// names, unless the schema says others may come (`additionalProperties` or `patternProperties`): a member the
// document does not name is a difference too (its field names are the contract).
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/** Statuses any route may answer (the document's description: 429 RATE_LIMITED, 503 DATABASE_BUSY or STORAGE_FULL). */
const ANY_ROUTE = ["429", "503"];

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** One answer as the runner saw it. */
export interface Answer {
  method: string;
  /** The URL's path, as sent. */
  path: string;
  status: number;
  contentType: string;
  body: string;
}

/** Members whose value is a map of names to schemas, and members whose value is data rather than a schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const DATA = new Set(["examples", "example", "const", "default", "enum"]);

/** A copy of a schema where every object that names its members and says nothing of others allows no others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value && typeof value === "object")
      out[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, closed(member)]));
    else out[key] = closed(value);
  }
  if (out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

export function answerChecker(document: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // Elysia's name for a string of digits (what a query value or a lenient body member may be).
  ajv.addFormat("integer", /^-?\d+$/);
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown) => {
    let fn = compiled.get(schema);
    if (!fn) compiled.set(schema, (fn = ajv.compile(closed(schema) as object)));
    return fn;
  };
  const operations: Operation[] = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([template, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
        responses: op.responses ?? {},
      })),
  );
  // The error envelope, as the document writes it for a 401 (every error of both surfaces has this body).
  const envelope = operations.map((o) => o.responses["401"]).find(Boolean)!;

  /** The operation a request reached: the template with the most literal segments among those matching. */
  function operationOf(method: string, path: string): Operation | undefined {
    return operations
      .filter((o) => o.method === method && o.pattern.test(path))
      .sort((a, b) => b.literals - a.literals)[0];
  }

  /** What is wrong with an answer (empty when it matches the document). */
  function problems(answer: Answer): string[] {
    const op = operationOf(answer.method, answer.path);
    if (!op) return [`no operation of the document serves ${answer.method} ${answer.path}`];
    const name = `${op.method} ${op.template} → ${answer.status}`;
    const documented = op.responses[String(answer.status)] ?? (ANY_ROUTE.includes(String(answer.status)) ? envelope : undefined);
    if (!documented) return [`${name}: status not documented (documented: ${Object.keys(op.responses).join(", ")})`];
    const content = documented.content ?? {};
    const mediaType = answer.contentType.split(";")[0]!.trim().toLowerCase();
    if (Object.keys(content).length === 0) return answer.body === "" ? [] : [`${name}: a body where the document shows none`];
    const media = content[mediaType];
    if (!media) return [`${name}: Content-Type ${mediaType || "(none)"}, documented ${Object.keys(content).join(", ")}`];
    if (!media.schema) return [];
    let value: unknown = answer.body;
    if (mediaType.endsWith("json")) {
      try {
        value = JSON.parse(answer.body);
      } catch {
        return [`${name}: not JSON: ${answer.body.slice(0, 120)}`];
      }
    }
    const validate = validator(media.schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${name}: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
  }

  return { operationOf, problems, operations };
}
