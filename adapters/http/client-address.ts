const MAX_ADDRESS = 64;

/**
 * The client address used for login throttling and the audit trail. The socket's peer address, unless the
 * operator says a reverse proxy sits in front (`trustProxy`): then the last `X-Forwarded-For` entry, the one
 * that proxy appended. Never trusted by default — a client could otherwise pick a new address per attempt.
 */
export function clientAddress(request: Request, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.split(",").pop()?.trim();
    if (last && last.length <= MAX_ADDRESS) return last;
  }
  return socketAddress ?? "unknown";
}
