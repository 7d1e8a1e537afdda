-- Custom data migration (drizzle-kit generate --custom): turns stored before turn_dates existed
-- have their time phrases resolved when the store opens (server/core/turn-dates.ts,
-- backfillTurnDates), in batches, newest first. This row says which turns are left: those with
-- an id below `below`. Each batch lowers it in the transaction that writes its dates, and the
-- row goes once none are left, so an interrupted backfill resumes where it stopped.
INSERT OR REPLACE INTO `meta` (`key`, `value`)
SELECT 'turn_dates_backfill', json_object('below', max(`id`) + 1) FROM `turns` HAVING count(*) > 0;
