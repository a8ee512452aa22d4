-- The stamps the caches and the fleet index read, kept by triggers in the same transaction as the change, whichever
-- instance (or CLI) writes: the same rules as the SQLite triggers, one PL/pgSQL function per stamp.
--
-- account_generation.n: one more for every row of companies, users, platform_tokens or company_integrations
-- inserted, updated or deleted, so a cache can tell an account change from other commits.
-- fleet_generation: every fleet entry inserted, updated or deleted bumps n and draws a new token, and logs the
-- slug(s) it touched in fleet_changes while n is within 50,000 of the saved index's stamp (log_base).
-- Every such change also notifies channel `tripswitch_fleet`: PostgreSQL sends it at commit and folds identical
-- notifications of one transaction into one, so listening instances wake once per committed fleet change.
INSERT INTO "account_generation" ("id", "n") VALUES (1, 0);
--> statement-breakpoint
INSERT INTO "fleet_generation" ("id", "n", "token") VALUES (1, 0, left(replace(gen_random_uuid()::text, '-', ''), 16));
--> statement-breakpoint
CREATE FUNCTION "account_stamp"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "account_generation" SET "n" = "n" + 1 WHERE "id" = 1;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "companies_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "companies" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE TRIGGER "users_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE TRIGGER "platform_tokens_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "platform_tokens" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE TRIGGER "company_integrations_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "company_integrations" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE FUNCTION "fleet_entries_stamp"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	stamp bigint;
	base bigint;
BEGIN
	UPDATE "fleet_generation" SET "n" = "n" + 1, "token" = left(replace(gen_random_uuid()::text, '-', ''), 16)
		WHERE "id" = 1 RETURNING "n", "log_base" INTO stamp, base;
	IF base >= 0 AND stamp - base <= 50000 THEN
		IF TG_OP <> 'DELETE' THEN
			INSERT INTO "fleet_changes" ("n", "slug") VALUES (stamp, NEW."slug") ON CONFLICT DO NOTHING;
		END IF;
		IF TG_OP <> 'INSERT' THEN
			INSERT INTO "fleet_changes" ("n", "slug") VALUES (stamp, OLD."slug") ON CONFLICT DO NOTHING;
		END IF;
	END IF;
	PERFORM pg_notify('tripswitch_fleet', '');
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "fleet_entries_stamp" AFTER INSERT OR UPDATE OR DELETE ON "fleet_entries" FOR EACH ROW EXECUTE FUNCTION "fleet_entries_stamp"();
