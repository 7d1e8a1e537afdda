CREATE TABLE `access_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`user_id` text NOT NULL,
	`agent_id` text,
	`read_only` integer DEFAULT false NOT NULL,
	`label` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_tokens_hash` ON `access_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `entities` ADD `user_id` text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `memories` ADD `user_id` text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE `memories` ADD `agent_id` text;--> statement-breakpoint
ALTER TABLE `memory_events` ADD `user_id` text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `user_id` text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE `turns` ADD `user_id` text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE `turns` ADD `agent_id` text;