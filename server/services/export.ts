// Every record of a space as JSON Lines and back (sm export / import, GET /export, POST /import),
// and a LoCoMo conversation file loaded through addTurn.
export { exportRecords } from '../core/export/export.ts';
export { importRecords } from '../core/export/import-records.ts';
export { loadLocomo } from '../core/export/locomo.ts';
