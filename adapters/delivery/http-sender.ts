/** The outcome of one HTTP delivery attempt. */
export interface SendResult {
  ok: boolean;
  status: number | null;
  /** Why it failed, in words safe to show the booking's parties (no credentials). */
  error?: string;
  /** The parsed JSON reply of a 2xx answer, when it was JSON. */
  reply?: unknown;
}

const MAX_REPLY_BYTES = 64 * 1024;

/** POSTs a JSON body with a timeout; any 2xx is success. Never throws. */
export async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "TripSwitch-Delivery/1.0", ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    if (name === "TimeoutError" || name === "AbortError") return { ok: false, status: null, error: `no answer within ${timeoutMs / 1000} s` };
    return { ok: false, status: null, error: "connection failed" };
  }
  const text = await readBounded(response);
  if (response.status < 200 || response.status > 299) return { ok: false, status: response.status, error: `answered HTTP ${response.status}` };
  let reply: unknown;
  try {
    reply = text ? JSON.parse(text) : undefined;
  } catch {}
  return { ok: true, status: response.status, reply };
}

async function readBounded(response: Response): Promise<string> {
  try {
    const buffer = await response.arrayBuffer();
    return new TextDecoder().decode(buffer.slice(0, MAX_REPLY_BYTES));
  } catch {
    return "";
  }
}
