import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { CheckedTarget } from "./outbound-guard";
import { storableText, storableValue } from "./storable-text";

/** The outcome of one HTTP delivery attempt. */
export interface SendResult {
  ok: boolean;
  status: number | null;
  /** Why it failed, in words safe to show the booking's parties (no credentials, no internal address). */
  error?: string;
  /** The parsed JSON reply of a 2xx answer, when it was JSON. */
  reply?: unknown;
  /** The answer's first RECORDED_ANSWER_BYTES as text (any status), when an answer came. */
  answer?: { text: string; truncated: boolean };
}

/** The most of a reply that is read; the rest is never received (the connection is closed). */
export const MAX_REPLY_BYTES = 64 * 1024;

/** How much of an answer is kept as text for the delivery log. */
export const RECORDED_ANSWER_BYTES = 4096;

/** The headers a POST of `body` carries: the fixed ones, then the message's own. */
export function requestHeaders(body: string, headers: Record<string, string>): Record<string, string> {
  return { "content-type": "application/json", "user-agent": "TripSwitch-Delivery/1.0", "content-length": String(Buffer.byteLength(body)), ...headers };
}

/**
 * POSTs a JSON body to a checked target, connecting to the address the guard approved (no second DNS
 * lookup, so a rebinding name cannot switch it) while the Host header and TLS server name stay the URL's.
 * Redirects are not followed. The reply is read as a stream and cut at 64 KiB; the whole exchange, reply
 * included, ends within `timeoutMs`. Any 2xx is success. Never throws.
 */
export function postJson(target: CheckedTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const { url } = target;
    const client = url.protocol === "https:" ? https : http;
    const request = client.request({
      method: "POST",
      host: target.host,
      port: url.port || (url.protocol === "https:" ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      // SNI carries a host name, never an address.
      servername: isIP(target.host) ? undefined : target.host,
      headers: requestHeaders(body, headers),
      lookup: (_host: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
        if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
    } as http.RequestOptions);
    const timer = setTimeout(() => finish({ ok: false, status: null, error: `no answer within ${timeoutMs / 1000} s` }), timeoutMs);
    request.on("error", () => finish({ ok: false, status: null, error: "connection failed" }));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const whole = Buffer.concat(chunks);
        // What came back is stored (delivery log, booking): without the characters a database refuses.
        const answer = { text: storableText(whole.subarray(0, RECORDED_ANSWER_BYTES).toString("utf8")), truncated: whole.byteLength > RECORDED_ANSWER_BYTES };
        if (status < 200 || status > 299) return finish({ ok: false, status, error: `answered HTTP ${status}`, answer });
        let reply: unknown;
        try {
          const text = whole.toString("utf8");
          reply = text ? storableValue(JSON.parse(storableText(text))) : undefined;
        } catch {}
        finish({ ok: true, status, reply, answer });
      };
      response.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = MAX_REPLY_BYTES - size;
        chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.byteLength, room);
        if (size >= MAX_REPLY_BYTES) done();
      });
      response.on("end", done);
      response.on("error", done);
    });
    request.end(body);
  });
}
