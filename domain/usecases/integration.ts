import { DEFAULT_MAX_TRIP_KM } from "../trips/trip-length";
import { DEFAULT_TURNAROUND_MINUTES } from "../fleet/holds";
import { ConflictError, TooManyRequestsError, ValidationError, type FieldError } from "../errors";
import { serviceSettingsOf, validateIntegrationPatch, type Integration } from "../delivery/integration";
import type { IntegrationRepository, OutboundTargets, WebhookVerifier } from "../delivery/ports";
import type { AuditLog, Clock } from "../ports";
import type { RateBudgets } from "../rate-limit";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";
import { policiesView, type PoliciesView } from "../trips/terms";
import { recoveryTiersOf } from "../trips/give-back-recovery";
import type { RecoveryTier } from "../trips/booking";

export interface IntegrationDeps {
  integrations: IntegrationRepository;
  clock: Clock;
  /** A new webhook signing secret. */
  newSecret: () => string;
  audit: AuditLog;
  /** Refuses URLs that reach private or special addresses; checked on save (and again at each send). */
  targets: OutboundTargets;
  /** Sends a new webhook URL the signed challenge it must echo before anything else is sent there. */
  verifier: WebhookVerifier;
  /** Where each company's challenges are counted. */
  challenges: RateBudgets;
}

/** Challenges one company may have sent within an hour (each is a POST to a URL it chose). */
export const WEBHOOK_CHALLENGES_PER_HOUR = 10;

/** What a company sees of its settings: never the delivery password, the webhook secret only when just created. */
export interface IntegrationView {
  deliveryUrl: string | null;
  deliveryAuth: { username: string } | null;
  luggage: Integration["luggage"];
  webhookUrl: string | null;
  webhookFormat: Integration["webhookFormat"];
  acceptTripsFrom: Integration["acceptTripsFrom"];
  serviceRadiusKm: number;
  turnaroundMinutes: number;
  minimumNoticeMinutes: number;
  maxTripKm: number;
  /** The currency network quotes show converted amounts in; null when unset. */
  displayCurrency: string | null;
  /** Cancellation tiers and free waiting, every default filled in (docs/terms.md#policies). */
  policies: PoliciesView;
  /** What a provider owes you when it gives a booking back (docs/settlement.md#give-back-recovery), the default filled in. */
  giveBackRecovery: RecoveryTier[];
  webhookSecretSet: boolean;
  webhookSecret?: string;
  /** Whether `webhookUrl` answered the signed challenge: until it has, nothing is sent there. */
  webhookVerified: boolean;
  /** Why the challenge just sent failed, in the answer that sent it. */
  webhookVerification?: string;
}

export function emptyIntegration(netid: string): Integration {
  return {
    netid,
    deliveryUrl: null,
    deliveryAuth: null,
    luggage: "notes",
    webhookUrl: null,
    webhookSecret: null,
    webhookVerifiedAt: null,
    webhookFormat: "events",
    acceptTripsFrom: "anyone",
    serviceRadiusKm: DEFAULT_SERVICE_RADIUS_KM,
    turnaroundMinutes: DEFAULT_TURNAROUND_MINUTES,
    minimumNoticeMinutes: 0,
    maxTripKm: DEFAULT_MAX_TRIP_KM,
  };
}

export function viewOf(i: Integration, revealSecret = false): IntegrationView {
  return {
    deliveryUrl: i.deliveryUrl,
    deliveryAuth: i.deliveryAuth ? { username: i.deliveryAuth.username } : null,
    luggage: i.luggage,
    webhookUrl: i.webhookUrl,
    webhookFormat: i.webhookFormat,
    acceptTripsFrom: i.acceptTripsFrom,
    ...serviceSettingsOf(i),
    displayCurrency: i.displayCurrency ?? null,
    policies: policiesView(i.policies),
    giveBackRecovery: recoveryTiersOf(i.giveBackRecovery),
    webhookSecretSet: i.webhookSecret !== null,
    ...(revealSecret && i.webhookSecret ? { webhookSecret: i.webhookSecret } : {}),
    webhookVerified: i.webhookUrl !== null && i.webhookVerifiedAt !== null,
  };
}

/** Who made a change, for the audit trail: the user and the client address it came from (unknown on the CLI). */
export interface ChangedBy {
  uid?: string;
  address?: string;
}

/** The company's settings, defaults when it never set any. */
export async function getIntegration(deps: IntegrationDeps, netid: string): Promise<IntegrationView> {
  return viewOf((await deps.integrations.get(netid)) ?? emptyIntegration(netid));
}

/**
 * Update integration settings: validate, check that each new URL stays out of the service's own network,
 * merge (absent keeps, null clears), create the webhook signing secret the first time a webhook URL is set —
 * that response is the only one that shows it — and send a new (or still unverified) webhook URL the signed
 * challenge: nothing else is sent there until it has echoed one.
 */
export async function updateIntegration(
  deps: IntegrationDeps,
  netid: string,
  input: Parameters<typeof validateIntegrationPatch>[0],
  by: ChangedBy = {},
): Promise<IntegrationView> {
  const current = (await deps.integrations.get(netid)) ?? emptyIntegration(netid);
  const checked = validateIntegrationPatch(input, current);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const unreachable = await targetProblems(deps.targets, checked.patch);
  if (unreachable.length) throw new ValidationError(unreachable);
  const next: Integration = { ...current, ...checked.patch };
  if (next.webhookUrl !== current.webhookUrl) next.webhookVerifiedAt = null;
  const unverified = checked.patch.webhookUrl != null && next.webhookVerifiedAt === null;
  const challenge = unverified && (await deps.verifier.needsChallenge(next.webhookUrl!));
  // The operator's own private receiver (allowed only under OUTBOUND_ALLOW_PRIVATE) is trusted as it is.
  if (unverified && !challenge) next.webhookVerifiedAt = deps.clock.now();
  if (challenge) await spendChallenge(deps, netid);
  const created = next.webhookUrl !== null && next.webhookSecret === null;
  if (created) next.webhookSecret = deps.newSecret();
  const failed = challenge ? await sendChallenge(deps, next) : undefined;
  await deps.integrations.save(next, deps.clock.now());
  const changed = Object.keys(checked.patch).join(", ") || "nothing";
  const verified = challenge ? (failed ? "; webhook URL not verified" : "; webhook URL verified") : "";
  deps.audit.record(
    { type: "integration.changed", netid, ...by, detail: `set ${changed}${created ? "; webhook secret created" : ""}${verified}` },
    deps.clock.now(),
  );
  return { ...viewOf(next, created), ...(failed ? { webhookVerification: failed } : {}) };
}

/** Send the webhook URL the signed challenge again (after fixing the endpoint); 409 NO_WEBHOOK_URL without one. */
export async function verifyWebhook(deps: IntegrationDeps, netid: string, by: ChangedBy = {}): Promise<IntegrationView> {
  const current = await deps.integrations.get(netid);
  if (!current?.webhookUrl || !current.webhookSecret) throw new ConflictError("No webhook URL is set", "NO_WEBHOOK_URL");
  const next: Integration = { ...current, webhookVerifiedAt: null };
  let failed: string | undefined;
  if (await deps.verifier.needsChallenge(current.webhookUrl)) {
    await spendChallenge(deps, netid);
    failed = await sendChallenge(deps, next);
  } else next.webhookVerifiedAt = deps.clock.now();
  await deps.integrations.save(next, deps.clock.now());
  deps.audit.record({ type: "integration.changed", netid, ...by, detail: failed ? "webhook URL not verified" : "webhook URL verified" }, deps.clock.now());
  return { ...viewOf(next), ...(failed ? { webhookVerification: failed } : {}) };
}

async function spendChallenge(deps: IntegrationDeps, netid: string): Promise<void> {
  const budget = await deps.challenges.take(`webhookChallenge:${netid}`, WEBHOOK_CHALLENGES_PER_HOUR, 3600, deps.clock.now());
  if (!budget.allowed)
    throw new TooManyRequestsError(
      budget.retryAfter,
      `At most ${WEBHOOK_CHALLENGES_PER_HOUR} webhook URL challenges an hour; retry in ${budget.retryAfter} s`,
      "RATE_LIMITED",
    );
}

/** Challenges `next.webhookUrl`; on success stamps `next` verified. Why it failed, or undefined. */
async function sendChallenge(deps: IntegrationDeps, next: Integration): Promise<string | undefined> {
  const failed = await deps.verifier.verify(next.webhookUrl!, next.webhookSecret!);
  if (!failed) next.webhookVerifiedAt = deps.clock.now();
  return failed;
}

/** Replace the webhook signing secret; the new one is shown once, in this answer. */
export async function rotateWebhookSecret(deps: IntegrationDeps, netid: string, by: ChangedBy = {}): Promise<IntegrationView> {
  const current = (await deps.integrations.get(netid)) ?? emptyIntegration(netid);
  const next = { ...current, webhookSecret: deps.newSecret() };
  await deps.integrations.save(next, deps.clock.now());
  deps.audit.record({ type: "integration.changed", netid, ...by, detail: "webhook secret rotated" }, deps.clock.now());
  return viewOf(next, true);
}

async function targetProblems(targets: OutboundTargets, patch: { deliveryUrl?: string | null; webhookUrl?: string | null }): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of ["deliveryUrl", "webhookUrl"] as const) {
    const url = patch[field];
    if (!url) continue;
    const problem = await targets.problem(url);
    if (problem) errors.push({ field, message: problem });
  }
  return errors;
}
