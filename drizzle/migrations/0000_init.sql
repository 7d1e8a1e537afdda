CREATE TABLE `entities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`type` text NOT NULL,
	`aliases` text DEFAULT '[]' NOT NULL,
	`summary` text,
	`mention_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entities_key_type` ON `entities` (`name_key`,`type`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer DEFAULT 5 NOT NULL,
	`run_at` integer NOT NULL,
	`locked_until` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "jobs_status" CHECK(status in ('pending', 'running', 'done', 'dead'))
);
--> statement-breakpoint
CREATE INDEX `jobs_status_run_at` ON `jobs` (`status`,`run_at`);--> statement-breakpoint
CREATE TABLE `memories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	`decay_rate` real NOT NULL,
	`importance` real DEFAULT 0 NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`event_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`last_accessed_at` integer,
	`valid_until` integer,
	`enriched_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "memories_kind" CHECK(kind in ('fact', 'reflection')),
	CONSTRAINT "memories_layer" CHECK(layer in ('mid', 'long')),
	CONSTRAINT "memories_status" CHECK(status in ('active', 'archived')),
	CONSTRAINT "memories_importance" CHECK(importance >= 0 and importance <= 1)
);
--> statement-breakpoint
CREATE INDEX `memories_status_layer_score` ON `memories` (`status`,`layer`,`score`);--> statement-breakpoint
CREATE INDEX `memories_content_key` ON `memories` (`content_key`);--> statement-breakpoint
CREATE INDEX `memories_subject_slot` ON `memories` (`subject`,`slot`);--> statement-breakpoint
CREATE INDEX `memories_session` ON `memories` (`session_id`);--> statement-breakpoint
CREATE TABLE `memory_entities` (
	`memory_id` integer NOT NULL,
	`entity_id` integer NOT NULL,
	PRIMARY KEY(`memory_id`, `entity_id`),
	FOREIGN KEY (`memory_id`) REFERENCES `memories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`entity_id`) REFERENCES `entities`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memory_entities_entity` ON `memory_entities` (`entity_id`);--> statement-breakpoint
CREATE TABLE `memory_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`memory_id` integer NOT NULL,
	`action` text NOT NULL,
	`detail` text DEFAULT '{}' NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `memory_events_memory` ON `memory_events` (`memory_id`,`id`);--> statement-breakpoint
CREATE TABLE `memory_relations` (
	`from_id` integer NOT NULL,
	`to_id` integer NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`from_id`, `to_id`, `kind`),
	FOREIGN KEY (`from_id`) REFERENCES `memories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`to_id`) REFERENCES `memories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memory_relations_to` ON `memory_relations` (`to_id`);--> statement-breakpoint
CREATE TABLE `memory_sources` (
	`memory_id` integer NOT NULL,
	`turn_id` integer NOT NULL,
	`reason` text NOT NULL,
	`rule` text,
	`at` integer NOT NULL,
	PRIMARY KEY(`memory_id`, `turn_id`),
	FOREIGN KEY (`memory_id`) REFERENCES `memories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`turn_id`) REFERENCES `turns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memory_sources_turn` ON `memory_sources` (`turn_id`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`consolidated_at` integer
);
--> statement-breakpoint
CREATE TABLE `turn_entities` (
	`turn_id` integer NOT NULL,
	`entity_id` integer NOT NULL,
	PRIMARY KEY(`turn_id`, `entity_id`),
	FOREIGN KEY (`turn_id`) REFERENCES `turns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`entity_id`) REFERENCES `entities`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `turn_entities_entity` ON `turn_entities` (`entity_id`);--> statement-breakpoint
CREATE TABLE `turns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`name` text,
	`text` text NOT NULL,
	`at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`enriched_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "turns_role" CHECK(role in ('user', 'assistant'))
);
--> statement-breakpoint
CREATE INDEX `turns_session_at` ON `turns` (`session_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `turns_at` ON `turns` (`at`);