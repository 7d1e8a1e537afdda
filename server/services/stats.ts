// What the service reports about itself: counts per user or the whole file, extraction figures,
// and the job queue. Thin: the core's reads as they are.
export { JobType, listJobs } from '../core/jobs/jobs.ts';
export { EXTRACTION_PATHS, readExtractionStats } from '../core/extraction/stats.ts';
export { getStats } from '../core/stats/stats.ts';
