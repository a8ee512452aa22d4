-- Every instance keeps what it read of accounts in memory (adapters/postgres/account-cache.ts) and empties it when
-- any instance, the CLI or an operator changes one. The account stamp's function now also notifies channel
-- `tripswitch_accounts` (PostgreSQL sends it at commit, drops it on rollback and folds a transaction's identical
-- notifications into one), and the tables those caches also read get the stamp: partnerships and the partners'
-- vehicle-type maps (every row), and revoked_tokens (every insert statement: a sign-out; pruning expired rows
-- changes no answer, as an expired token is refused anyway).
CREATE OR REPLACE FUNCTION "account_stamp"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "account_generation" SET "n" = "n" + 1 WHERE "id" = 1;
	PERFORM pg_notify('tripswitch_accounts', '');
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "partnerships_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "partnerships" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE TRIGGER "partner_vehicle_types_account_stamp" AFTER INSERT OR UPDATE OR DELETE ON "partner_vehicle_types" FOR EACH ROW EXECUTE FUNCTION "account_stamp"();
--> statement-breakpoint
CREATE TRIGGER "revoked_tokens_account_stamp" AFTER INSERT ON "revoked_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "account_stamp"();
