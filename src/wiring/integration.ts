import { newWebhookSecret } from "../../adapters/delivery/signing";
import { ChallengeVerifier } from "../../adapters/delivery/webhook-verifier";
import type { OutboundGuard } from "../../adapters/delivery/outbound-guard";
import type { RateBudgets } from "../../domain/rate-limit";
import type { Wiring } from "./context";

/** A company's integration (delivery endpoint, webhook and its challenge) and its partnerships. */
export function wireIntegration({ storage, clock, options }: Wiring, { guard, rateBudgets }: { guard: OutboundGuard; rateBudgets: RateBudgets }) {
  const { integrations, partnerships, companies, audit } = storage;
  const verifier = new ChallengeVerifier(guard, 5000, options.challengePrivateWebhooks ?? false);
  return {
    integrations,
    integration: { integrations, clock, newSecret: newWebhookSecret, audit, targets: guard, verifier, challenges: rateBudgets },
    partnerships,
    partners: { partnerships, companies, clock, audit },
  };
}
