import { requestHeaders } from "./http-sender";

/** The headers a webhook attempt sent, as its delivery log shows them: never a credential (the signature is none). */
export function recordedHeaders(body: string, headers: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(requestHeaders(body, headers)))
    if (!/^(authorization|proxy-authorization|cookie|token)$/i.test(name)) shown[name] = value;
  return shown;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "partner";
  }
}

/**
 * What a log line says of a failure: its kind and code, never its message (a database error quotes the failing
 * statement's values: passenger names, trip notes).
 */
export function safeError(error: unknown): { type: string; code?: string } {
  const e = error as { name?: unknown; code?: unknown } | null;
  const type = e && typeof e.name === "string" ? e.name : typeof error;
  const code = e && (typeof e.code === "string" || typeof e.code === "number") ? String(e.code) : undefined;
  return code ? { type, code } : { type };
}
