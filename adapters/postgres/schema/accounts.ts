import { pgTable, text, integer, bigint, boolean, index, uniqueIndex } from "drizzle-orm/pg-core";
import { time } from "./columns";

export const companies = pgTable(
  "companies",
  {
    netid: text("netid").primaryKey(),
    netidLower: text("netid_lower").notNull(),
    name: text("name").notNull(),
    coType: text("co_type").notNull(),
    plan: text("plan").notNull().default("FREE"),
    mainEmail: text("main_email").notNull(),
    mainPhone: text("main_phone").notNull(),
    address: text("address"),
    notes: text("notes"),
    createdAt: time("created_at").notNull(),
    /** A sandbox company's trips are answered by the simulated dispatcher. */
    sandbox: boolean("sandbox").notNull().default(false),
  },
  (t) => [
    uniqueIndex("companies_netid_lower").on(t.netidLower),
    uniqueIndex("companies_main_email").on(t.mainEmail),
    uniqueIndex("companies_main_phone").on(t.mainPhone),
  ],
);

export const users = pgTable(
  "users",
  {
    uid: text("uid").primaryKey(),
    uidLower: text("uid_lower").notNull(),
    netid: text("netid")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("users_uid_lower").on(t.uidLower), uniqueIndex("users_email").on(t.email), index("users_netid").on(t.netid)],
);

export const platformTokens = pgTable(
  "platform_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    uid: text("uid")
      .notNull()
      .references(() => users.uid, { onDelete: "cascade" }),
    createdAt: time("created_at").notNull(),
    releasedAt: time("released_at"),
  },
  (t) => [index("platform_tokens_uid").on(t.uid)],
);

/** Core JWTs ended before their expiry (sign-out), by token id; a row is pruned once its token would have expired. */
export const revokedTokens = pgTable(
  "revoked_tokens",
  {
    tokenId: text("token_id").primaryKey(),
    expiresAt: time("expires_at").notNull(),
  },
  (t) => [index("revoked_tokens_expires_at").on(t.expiresAt)],
);

export const loginFailures = pgTable(
  "login_failures",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    key: text("key").notNull(),
    at: time("at").notNull(),
  },
  (t) => [index("login_failures_key_at").on(t.key, t.at)],
);

/**
 * One row (id 1) counting changes to the tables the account caches read (companies, users, platform_tokens,
 * company_integrations): a trigger (migration 0001) adds one for every row inserted, updated or deleted, in
 * the same transaction, whichever instance writes. A cache notices another connection's account change by
 * this number.
 */
export const accountGeneration = pgTable("account_generation", {
  id: integer("id").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull(),
});
