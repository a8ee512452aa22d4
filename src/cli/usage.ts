/** The usage text, printed by --help and after every usage error. */
export const USAGE = `Usage: tripswitch <command> [arguments]

Commands:
  serve [--demo]                        migrate, build indexes, then serve HTTP (default command)
  migrate                               apply database migrations and exit
  seed-demo                             load the demo companies and fleet
  company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>
  company set-sandbox <netid> on|off   a sandbox company's trips are answered by a simulated dispatcher
  company set-integration <netid> [--delivery-url URL] [--luggage native|notes] [--webhook-url URL]
                          [--webhook-format events|gnet] [--accept-trips-from anyone|partners]
                          [--service-radius-km 1-500] [--turnaround-minutes 0-720]
                          [--minimum-notice-minutes 0-10080] [--max-trip-km 1-5000] [--policies JSON]
                          [--display-currency CODE]
                                        set a company's delivery endpoint, luggage support, webhook URL
                                        ("" clears a URL), webhook body format, who
                                        may send it trips (anyone, or only partners) and
                                        how far from a pickup its vehicles serve quotes (km),
                                        the turnaround after a booked trip and the shortest
                                        notice it quotes at (minutes), and the longest trip
                                        it quotes (km of road; "" resets to the default), and the
                                        currency network quotes are shown in (ISO 4217, e.g. EUR; "" clears)
  user remove <uid>                     delete a user's profile; its tokens stop working
  audit [--type T] [--netid N] [--since UNIX] [--limit N]
                                        print security events (newest first) as JSON lines
  backup <file>                         consistent online backup of the database (the service may run)
  restore <file>                        replace the database with a checked backup (stop the service first)
  fleet import <netid> <file.csv|file.json> [--mode upsert|replace|append]
  rates import <netid> <file.json>   replace a company's rate card (docs/rates.md)
  fx import <file.csv|file.xml> [--force]
                                        replace the FX table with the ECB's daily reference rates file, as published
                                        (eurofxref-daily.xml or the CSV of eurofxref.zip; docs/fx.md), all or nothing;
                                        --force: also a table older than the one in use, or a rate out of range
                                        import up to 10,000 fleet entries, all or nothing
  import-sqlite <file.sqlite>           copy an SQLite database into the (new, empty) PostgreSQL database
                                        at DATABASE_URL, all or nothing
  --version                             print the version and exit

Configuration comes from the environment: PORT, PLATFORM_PORT, HOST, DB_PATH, JWT_SECRET,
TOKEN_TTL_SECONDS, DEMO_DATA, LOG_LEVEL, MAX_BODY_BYTES, RATE_LIMIT_SEARCH_PER_MIN,
RATE_LIMIT_SENDTRIP_PER_MIN, RATE_LIMIT_REGISTER_PER_HOUR, RATE_LIMIT_WRITES_PER_MIN, IDLE_TIMEOUT_SECONDS,
TRUST_PROXY, SECRETS_KEY, OUTBOUND_ALLOW_PRIVATE, METRICS_TOKEN, METRICS_PUBLIC, DATABASE_URL, DELIVERY_LEASE_SECONDS,
PASSWORD_HASH_COST, GAZETTEER_WARM (see docs/deployment.md).`;

/** A command line the CLI cannot run: its message is printed with the usage text, exit 2. */
export class UsageError extends Error {}
