import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";

/** A URL the outbound guard approved, with the address to connect to (no second DNS lookup). */
export interface PinnedTarget {
  url: URL;
  /** The host name as the URL spells it, without IPv6 brackets (Host header and TLS server name). */
  host: string;
  address: string;
  family: 4 | 6;
}

/**
 * The outbound guard's check (docs/security.md#outbound-requests-delivery-and-webhook-urls), as the delivery worker
 * uses it: refuses private and special addresses unless OUTBOUND_ALLOW_PRIVATE, plain http in production.
 */
export interface OutboundCheck {
  check(url: string): Promise<{ ok: true; target: PinnedTarget } | { ok: false; reason: string }>;
}

export type GetOutcome = { ok: true; body: unknown } | { ok: false; reason: string };

/**
 * GETs a checked target's JSON, connecting to the address the guard approved while the Host header and TLS server
 * name stay the URL's. No redirect is followed; the answer is read as a stream and cut at `maxBytes` (a longer one
 * fails); the whole exchange ends within `timeoutMs`. Never throws.
 */
export function getJson(target: PinnedTarget, headers: Record<string, string>, timeoutMs: number, maxBytes: number): Promise<GetOutcome> {
  return new Promise<GetOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: GetOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const { url } = target;
    const client = url.protocol === "https:" ? https : http;
    const request = client.request({
      method: "GET",
      host: target.host,
      port: url.port || (url.protocol === "https:" ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      servername: isIP(target.host) ? undefined : target.host,
      headers: { accept: "application/json", ...headers },
      lookup: (_host: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
        if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
    } as http.RequestOptions);
    const timer = setTimeout(() => finish({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    request.on("error", () => finish({ ok: false, reason: "connection failed" }));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) return finish({ ok: false, reason: `answered HTTP ${status}` });
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > maxBytes) return finish({ ok: false, reason: `answered more than ${maxBytes} bytes` });
        chunks.push(chunk);
      });
      response.on("end", () => {
        try {
          finish({ ok: true, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch {
          finish({ ok: false, reason: "answered something that is not JSON" });
        }
      });
      response.on("error", () => finish({ ok: false, reason: "the answer broke off" }));
    });
    request.end();
  });
}
