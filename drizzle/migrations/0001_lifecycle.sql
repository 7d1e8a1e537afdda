ALTER TABLE `jobs` ADD `locked_by` text;--> statement-breakpoint
ALTER TABLE `memories` ADD `confidence_base` real DEFAULT 1 NOT NULL;