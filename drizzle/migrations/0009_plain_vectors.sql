CREATE TABLE `memory_vectors` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`seq` integer NOT NULL,
	`code` blob NOT NULL,
	`embedding` blob NOT NULL,
	FOREIGN KEY (`id`) REFERENCES `memories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memory_vectors_user_seq` ON `memory_vectors` (`user_id`,`seq`,`code`);--> statement-breakpoint
CREATE TABLE `turn_vectors` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`seq` integer NOT NULL,
	`code` blob NOT NULL,
	`embedding` blob NOT NULL,
	FOREIGN KEY (`id`) REFERENCES `turns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `turn_vectors_user_seq` ON `turn_vectors` (`user_id`,`seq`,`code`);