CREATE TABLE "revoked_tokens" (
	"token_id" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "revoked_tokens_expires_at" ON "revoked_tokens" USING btree ("expires_at");