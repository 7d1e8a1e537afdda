#!/usr/bin/env bash
# Makes test/fixtures/release-0.1.db: a small database written by the release before memory
# spaces (commit e9217f2), through that release's own CLI, so the upgrade test opens a file the
# way users have them. Run from the repository: bash scripts/release-fixture.sh [OUT]
# It checks the release out into a temporary git worktree (sharing this checkout's node_modules)
# and removes it afterwards; the clock is pinned (SM_NOW) so the file's contents are stable.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(realpath -m "${1:-$ROOT/test/fixtures/release-0.1.db}")"
RELEASE=e9217f2
WORK="$(mktemp -d)"
trap 'git -C "$ROOT" worktree remove --force "$WORK/release" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git -C "$ROOT" worktree add --detach "$WORK/release" "$RELEASE" >/dev/null
ln -s "$ROOT/node_modules" "$WORK/release/node_modules"
rm -f "$OUT" "$OUT-wal" "$OUT-shm"
DB="$WORK/fixture.db"
sm() { (cd "$WORK/release" && SM_LOG_LEVEL=error SM_NOW="$NOW" node bin/sm.js --db "$DB" "$@" >/dev/null); }

NOW=2025-03-01T09:00:00Z sm add-turn --session trip-planning --role user --name "Dana Whitfield" --text "My name is Dana Whitfield and I live in Berlin"
NOW=2025-03-01T09:01:00Z sm add-turn --session trip-planning --role assistant --text "Nice to meet you, Dana. How can I help?"
NOW=2025-03-01T09:02:00Z sm add-turn --session trip-planning --role user --name "Dana Whitfield" --text "I love hiking with my sister Maria in the Alps"
NOW=2025-03-01T09:03:00Z sm add-turn --session trip-planning --role user --name "Dana Whitfield" --text "My email is dana@example.com"
NOW=2025-03-08T18:00:00Z sm add-turn --session weekend-chat --role user --name "Dana Whitfield" --text "I live in Lisbon now"
NOW=2025-03-08T18:01:00Z sm add-turn --session weekend-chat --role user --name "Dana Whitfield" --text "I like pottery and green tea"
NOW=2025-03-08T18:02:00Z sm add-turn --session weekend-chat --role assistant --text "Pottery sounds relaxing."
NOW=2025-03-08T18:05:00Z sm remember --text "Dana is allergic to peanuts" --importance 1 --tags health,diet
NOW=2025-03-08T18:06:00Z sm remember --text "Dana prefers window seats" --tags travel
NOW=2025-03-08T18:07:00Z sm confirm --id 7
NOW=2025-03-08T18:08:00Z sm correct --id 8 --text "Dana prefers aisle seats"
NOW=2025-03-08T18:09:00Z sm remember --text "Dana's old gym code is 4417"
NOW=2025-03-08T18:10:00Z sm forget --id 10
NOW=2025-03-09T10:00:00Z sm add-turn --session sunday --role user --name "Dana Whitfield" --text "I met Maria for coffee at Cafe Luso"
NOW=2025-03-09T10:30:00Z sm jobs --run
NOW=2025-03-09T11:00:00Z sm gc

# One file, no write-ahead log beside it.
(cd "$ROOT" && node -e "
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('wal_checkpoint(TRUNCATE)');
db.exec('vacuum');
db.pragma('journal_mode = DELETE');
db.close();" "$DB")
mkdir -p "$(dirname "$OUT")"
cp "$DB" "$OUT"
echo "wrote $OUT"
