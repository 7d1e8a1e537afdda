// What the adapters take from the core's kernel as it is: the expected errors and their codes,
// time parsing and the clock, the version, the vocabularies flags and enums are built from, and
// the store's change events. Re-exported here so that adapters import values from services only.
export { type Clock, fixedClock, parseTime, systemClock } from '../core/kernel/clock.ts';
export { badInput, ErrorCode, expectedOf, forbidden, notFound, SmError } from '../core/kernel/errors.ts';
export { type ChangeEvent, hearOtherNodes, onChange } from '../core/kernel/store.ts';
export { VERSION } from '../core/kernel/version.ts';
export { MEMORY_SORTS, SEARCH_KINDS } from '../core/kernel/vocabulary.ts';
export { groupBy } from '../core/kernel/group-by.ts';
