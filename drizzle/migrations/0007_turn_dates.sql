CREATE TABLE `turn_dates` (
	`turn_id` integer NOT NULL,
	`user_id` text DEFAULT 'default' NOT NULL,
	`start` integer NOT NULL,
	`phrase` text NOT NULL,
	`date_from` integer NOT NULL,
	`date_to` integer NOT NULL,
	`grain` text NOT NULL,
	PRIMARY KEY(`turn_id`, `start`),
	FOREIGN KEY (`turn_id`) REFERENCES `turns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `turn_dates_user_from` ON `turn_dates` (`user_id`,`date_from`,`date_to`);