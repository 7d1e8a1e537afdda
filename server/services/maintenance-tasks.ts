// The maintenance task names, apart from their code so the CLI can list them without loading it.
export const MAINTENANCE_TASKS = ['enrich', 'consolidate', 'decay', 'reflect', 'optimize'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];
