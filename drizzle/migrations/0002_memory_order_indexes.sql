DROP INDEX `memories_status_layer_score`;--> statement-breakpoint
CREATE INDEX `memories_kind_status_created` ON `memories` (`kind`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `memories_status_layer_score` ON `memories` (`status`,`layer`,"score" desc,`id`);