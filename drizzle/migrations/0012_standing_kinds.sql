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
	`pinned` integer DEFAULT false NOT NULL,
	CONSTRAINT "memories_kind" CHECK(kind in ('fact', 'reflection', 'instruction', 'preference', 'profile')),
	CONSTRAINT "memories_layer" CHECK(layer in ('mid', 'long')),
	CONSTRAINT "memories_status" CHECK(status in ('active', 'archived')),
	CONSTRAINT "memories_importance" CHECK(importance >= 0 and importance <= 1)
);
--> statement-breakpoint
INSERT INTO `__new_memories`("id", "user_id", "agent_id", "kind", "layer", "status", "content", "content_key", "subject", "slot", "value", "polarity", "session_id", "hits", "access_count", "score", "confidence", "confidence_base", "decay_rate", "importance", "tags", "created_at", "event_at", "last_seen_at", "last_accessed_at", "valid_until", "enriched_at", "pinned") SELECT "id", "user_id", "agent_id", "kind", "layer", "status", "content", "content_key", "subject", "slot", "value", "polarity", "session_id", "hits", "access_count", "score", "confidence", "confidence_base", "decay_rate", "importance", "tags", "created_at", "event_at", "last_seen_at", "last_accessed_at", "valid_until", "enriched_at", "pinned" FROM `memories`;--> statement-breakpoint
DROP TABLE `memories`;--> statement-breakpoint
ALTER TABLE `__new_memories` RENAME TO `memories`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `memories_status_layer_score` ON `memories` (`user_id`,`status`,`layer`,`score`,`id`);--> statement-breakpoint
CREATE INDEX `memories_kind_status_created` ON `memories` (`user_id`,`kind`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `memories_content_key` ON `memories` (`user_id`,`content_key`);--> statement-breakpoint
CREATE INDEX `memories_subject_slot` ON `memories` (`user_id`,`subject`,`slot`);--> statement-breakpoint
CREATE INDEX `memories_session` ON `memories` (`user_id`,`session_id`);