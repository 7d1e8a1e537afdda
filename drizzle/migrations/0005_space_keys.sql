PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_memories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text DEFAULT 'default' NOT NULL,
	`agent_id` text,
	`kind` text DEFAULT 'fact' NOT NULL,
	`layer` text DEFAULT 'mid' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`content` text NOT NULL,
	`content_key` text NOT NULL,
	`subject` text,
	`slot` text,
	`value` text,
	`polarity` integer,
	`session_id` text,
	`hits` integer DEFAULT 0 NOT NULL,
	`access_count` integer DEFAULT 0 NOT NULL,
	`score` real DEFAULT 0 NOT NULL,
	`confidence` real DEFAULT 1 NOT NULL,
	`confidence_base` real DEFAULT 1 NOT NULL,
	`decay_rate` real NOT NULL,
	`importance` real DEFAULT 0 NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`event_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`last_accessed_at` integer,
	`valid_until` integer,
	`enriched_at` integer,
	CONSTRAINT "memories_kind" CHECK(kind in ('fact', 'reflection')),
	CONSTRAINT "memories_layer" CHECK(layer in ('mid', 'long')),
	CONSTRAINT "memories_status" CHECK(status in ('active', 'archived')),
	CONSTRAINT "memories_importance" CHECK(importance >= 0 and importance <= 1)
);
--> statement-breakpoint
INSERT INTO `__new_memories`("id", "user_id", "agent_id", "kind", "layer", "status", "content", "content_key", "subject", "slot", "value", "polarity", "session_id", "hits", "access_count", "score", "confidence", "confidence_base", "decay_rate", "importance", "tags", "created_at", "event_at", "last_seen_at", "last_accessed_at", "valid_until", "enriched_at") SELECT "id", "user_id", "agent_id", "kind", "layer", "status", "content", "content_key", "subject", "slot", "value", "polarity", "session_id", "hits", "access_count", "score", "confidence", "confidence_base", "decay_rate", "importance", "tags", "created_at", "event_at", "last_seen_at", "last_accessed_at", "valid_until", "enriched_at" FROM `memories`;--> statement-breakpoint
DROP TABLE `memories`;--> statement-breakpoint
ALTER TABLE `__new_memories` RENAME TO `memories`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `memories_status_layer_score` ON `memories` (`user_id`,`status`,`layer`,`score`,`id`);--> statement-breakpoint
CREATE INDEX `memories_kind_status_created` ON `memories` (`user_id`,`kind`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `memories_content_key` ON `memories` (`user_id`,`content_key`);--> statement-breakpoint
CREATE INDEX `memories_subject_slot` ON `memories` (`user_id`,`subject`,`slot`);--> statement-breakpoint
CREATE INDEX `memories_session` ON `memories` (`user_id`,`session_id`);--> statement-breakpoint
CREATE TABLE `__new_turns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text DEFAULT 'default' NOT NULL,
	`agent_id` text,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`name` text,
	`text` text NOT NULL,
	`at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`enriched_at` integer,
	FOREIGN KEY (`user_id`,`session_id`) REFERENCES `sessions`(`user_id`,`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "turns_role" CHECK(role in ('user', 'assistant'))
);
--> statement-breakpoint
INSERT INTO `__new_turns`("id", "user_id", "agent_id", "session_id", "role", "name", "text", "at", "created_at", "enriched_at") SELECT "id", "user_id", "agent_id", "session_id", "role", "name", "text", "at", "created_at", "enriched_at" FROM `turns`;--> statement-breakpoint
DROP TABLE `turns`;--> statement-breakpoint
ALTER TABLE `__new_turns` RENAME TO `turns`;--> statement-breakpoint
CREATE INDEX `turns_session_at` ON `turns` (`user_id`,`session_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `turns_user_at` ON `turns` (`user_id`,`at`,`id`);--> statement-breakpoint
DROP INDEX `entities_key_type`;--> statement-breakpoint
CREATE INDEX `entities_user_mentions` ON `entities` (`user_id`,`mention_count`);--> statement-breakpoint
CREATE UNIQUE INDEX `entities_key_type` ON `entities` (`user_id`,`name_key`,`type`);--> statement-breakpoint
DROP INDEX `jobs_consolidation_session`;--> statement-breakpoint
CREATE INDEX `jobs_user` ON `jobs` (`user_id`);--> statement-breakpoint
CREATE INDEX `jobs_consolidation_session` ON `jobs` (`user_id`,"payload" ->> '$.sessionId') WHERE "jobs"."type" = 'session.consolidate';--> statement-breakpoint
CREATE TABLE `__new_sessions` (
	`user_id` text DEFAULT 'default' NOT NULL,
	`id` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`consolidated_at` integer,
	PRIMARY KEY(`user_id`, `id`)
);
--> statement-breakpoint
INSERT INTO `__new_sessions`("user_id", "id", "first_seen_at", "last_seen_at", "consolidated_at") SELECT "user_id", "id", "first_seen_at", "last_seen_at", "consolidated_at" FROM `sessions`;--> statement-breakpoint
DROP TABLE `sessions`;--> statement-breakpoint
ALTER TABLE `__new_sessions` RENAME TO `sessions`;--> statement-breakpoint
CREATE INDEX `sessions_user_last_seen` ON `sessions` (`user_id`,`last_seen_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_unconsolidated` ON `sessions` (`user_id`,`last_seen_at`,`id`) WHERE "sessions"."consolidated_at" is null;--> statement-breakpoint
CREATE INDEX `access_tokens_user` ON `access_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `memory_events_user` ON `memory_events` (`user_id`);