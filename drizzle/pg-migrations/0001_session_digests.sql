CREATE TABLE "session_digests" (
	"user_id" text DEFAULT 'default' NOT NULL,
	"session_id" text NOT NULL,
	"agent_id" text,
	"summary" text NOT NULL,
	"model" text NOT NULL,
	"turn_count" bigint NOT NULL,
	"through_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "session_digests_user_id_session_id_pk" PRIMARY KEY("user_id","session_id")
);
--> statement-breakpoint
ALTER TABLE "session_digests" ADD CONSTRAINT "session_digests_user_id_session_id_sessions_user_id_id_fk" FOREIGN KEY ("user_id","session_id") REFERENCES "public"."sessions"("user_id","id") ON DELETE cascade ON UPDATE no action;