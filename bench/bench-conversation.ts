// One shape for every data set the quality benchmarks read (LoCoMo files, BEAM chat folders).
export type BenchTurn = { id: string; role: 'user' | 'assistant'; name?: string; text: string; at: number };
export type BenchSession = { index: number; at: number; turns: BenchTurn[] };
/** `category`: LoCoMo's number as text ("1".."4") or BEAM's ability; `evidence`: turn ids, none for abstention. */
export type BenchQuestion = { text: string; category: string; evidence: string[] };
export type BenchConversation = {
  name: string;
  dataset: 'locomo' | 'beam';
  sessions: BenchSession[];
  questions: BenchQuestion[];
};
