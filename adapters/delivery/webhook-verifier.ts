import type { WebhookVerifier } from "../../domain/delivery/ports";
import { postJson } from "./http-sender";
import { forbiddenAddress, type OutboundGuard } from "./outbound-guard";
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signing";

/** The event type of the challenge a new webhook URL must answer. */
export const VERIFY_EVENT_TYPE = "webhook.verify";

/**
 * Sends the challenge through the outbound guard (a URL that reaches the service's own network is refused
 * again here) with a short timeout, and accepts a 2xx JSON reply `{"challenge": "<the challenge>"}`.
 * A URL on a private or loopback address can only be saved where the operator lifted the guard
 * (OUTBOUND_ALLOW_PRIVATE: development, a receiver on the operator's own machine); it is the operator's own and
 * is trusted without a challenge unless `challengePrivate` asks for one. Public URLs, the ones the service could
 * be turned against, are always challenged.
 */
export class ChallengeVerifier implements WebhookVerifier {
  constructor(
    private readonly guard: OutboundGuard,
    private readonly timeoutMs = 5000,
    private readonly challengePrivate = false,
  ) {}

  async needsChallenge(url: string): Promise<boolean> {
    if (this.challengePrivate) return true;
    const checked = await this.guard.check(url);
    return !checked.ok || forbiddenAddress(checked.target.address) === undefined;
  }

  async verify(url: string, secret: string): Promise<string | undefined> {
    const checked = await this.guard.check(url);
    if (!checked.ok) return `the URL ${checked.reason}`;
    const eventId = crypto.randomUUID();
    const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
    const createdAt = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ eventId, type: VERIFY_EVENT_TYPE, createdAt, challenge });
    const headers = {
      [EVENT_ID_HEADER]: eventId,
      [EVENT_TYPE_HEADER]: VERIFY_EVENT_TYPE,
      [SIGNATURE_HEADER]: signatureHeader(secret, body, createdAt, eventId),
    };
    const result = await postJson(checked.target, body, headers, this.timeoutMs);
    if (!result.ok) return `the challenge failed: ${result.error ?? `answered ${result.status}`}`;
    const echoed = (result.reply as { challenge?: unknown } | null | undefined)?.challenge;
    return echoed === challenge ? undefined : 'the reply did not echo the challenge (answer {"challenge": "<the challenge>"})';
  }
}
