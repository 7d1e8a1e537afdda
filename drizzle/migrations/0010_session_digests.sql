CREATE TABLE `session_digests` (
	`user_id` text DEFAULT 'default' NOT NULL,
	`session_id` text NOT NULL,
	`agent_id` text,
	`summary` text NOT NULL,
	`model` text NOT NULL,
	`turn_count` integer NOT NULL,
	`through_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `session_id`),
	FOREIGN KEY (`user_id`,`session_id`) REFERENCES `sessions`(`user_id`,`id`) ON UPDATE no action ON DELETE cascade
);
