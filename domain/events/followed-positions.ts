import type { LiveEventLog, NewLiveEvent } from "./live-events";

/**
 * The live event log as chauffeur positions reach it: a position is written only for the companies that follow
 * positions (an event stream lately), so positions nobody listens to cost no write.
 */
export function followedPositions(log: Pick<LiveEventLog, "append">, follows: (netid: string) => boolean): Pick<LiveEventLog, "append"> {
  return { append: (rows: NewLiveEvent[]) => log.append(rows.filter((r) => follows(r.netid))) };
}
