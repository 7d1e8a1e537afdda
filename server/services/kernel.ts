// What the adapters take from the core's kernel as it is: the expected errors and their codes,
// time parsing and the clock, the version, and the vocabularies flags and enums are built from.
// Re-exported here so that adapters import values from services only. Every `sm` command loads
// this at start: keep it to small modules (the store's change events are in changes.ts).
export { type Clock, fixedClock, parseTime, systemClock } from '../core/kernel/clock.ts';
export { badInput, ErrorCode, expectedOf, forbidden, notFound, SmError } from '../core/kernel/errors.ts';
export { VERSION } from '../core/kernel/version.ts';
export { MEMORY_SORTS, SEARCH_KINDS } from '../core/kernel/vocabulary.ts';
export { groupBy } from '../core/kernel/group-by.ts';
