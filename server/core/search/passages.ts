// Passages of long turns are cut in ../text/passages.ts, where the text index can score them too;
// the search and context code reads them from here.
export * from '../text/passages.ts';
