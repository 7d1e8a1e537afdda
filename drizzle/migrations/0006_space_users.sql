-- Custom data migration (drizzle-kit generate --custom): rows written before memory spaces
-- existed belong to the user `default`, registered here once so that `users` lists it.
INSERT OR IGNORE INTO `users` (`id`, `created_at`)
SELECT 'default', coalesce(min(`at`), 0) FROM (
  SELECT `first_seen_at` AS `at` FROM `sessions` WHERE `user_id` = 'default'
  UNION ALL SELECT `created_at` FROM `memories` WHERE `user_id` = 'default'
  UNION ALL SELECT `created_at` FROM `entities` WHERE `user_id` = 'default'
) HAVING count(*) > 0;--> statement-breakpoint
UPDATE `jobs` SET `user_id` = 'default' WHERE `user_id` IS NULL AND `type` IN ('extract.llm', 'ner.accurate', 'session.consolidate', 'embed');
