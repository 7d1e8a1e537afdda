// Fits a linear turn ranker by listwise softmax cross-entropy (ListNet's top-one form): for each
// question, the softmax of the candidates' scores should put its weight on the evidence turns.
// The loss is convex and smooth, so the fit is the same from any start and a left-out figure owes
// nothing to weights that saw the left-out conversation (docs/benchmarks.md#how-the-ranker-is-fitted).

/** One question as the fit sees it: its candidates' features (row-major) and which rows are evidence (-1: not a candidate). */
export type RankedQuestion = { dataset: string; rows: number; features: number[]; evidence: number[] };

/** L2 on the weights: 0.001-0.003 gave the same left-out recall; 0.01 a little less. */
const L2 = 0.003;
const STEPS = 400;
const LEARNING_RATE = 0.05;

/**
 * Weights over `width` features that maximise the evidence's softmax share, each data set's
 * questions weighing 1 in all whatever their number; `frozen` features stay 0. Adam steps on the
 * full gradient: deterministic.
 */
export function fitSoftmax(questions: RankedQuestion[], width: number, frozen: ReadonlySet<number>): Float64Array {
  const counts = new Map<string, number>();
  for (const q of questions) counts.set(q.dataset, (counts.get(q.dataset) ?? 0) + 1);
  const free = [...Array(width).keys()].filter((k) => !frozen.has(k));
  const w = new Float64Array(width);
  const first = new Float64Array(width);
  const second = new Float64Array(width);
  for (let step = 1; step <= STEPS; step++) {
    const gradient = new Float64Array(width);
    for (const q of questions) addGradient(gradient, w, q, { free, weight: 1 / counts.get(q.dataset)! });
    for (const k of free) {
      const g = gradient[k]! + L2 * w[k]!;
      first[k] = 0.9 * first[k]! + 0.1 * g;
      second[k] = 0.999 * second[k]! + 0.001 * g * g;
      const m = first[k]! / (1 - 0.9 ** step);
      const v = second[k]! / (1 - 0.999 ** step);
      w[k]! -= (LEARNING_RATE * m) / (Math.sqrt(v) + 1e-8);
    }
  }
  return w;
}

/** Adds one question's gradient of -mean(log softmax(score)[evidence]). */
function addGradient(
  gradient: Float64Array,
  w: Float64Array,
  q: RankedQuestion,
  { free, weight }: { free: number[]; weight: number },
) {
  const evidence = q.evidence.filter((e) => e >= 0);
  if (evidence.length === 0 || evidence.length === q.rows) return;
  const width = w.length;
  const score = new Float64Array(q.rows);
  let top = -Infinity;
  for (let r = 0; r < q.rows; r++) {
    let x = 0;
    for (const k of free) x += w[k]! * q.features[r * width + k]!;
    score[r] = x;
    top = Math.max(top, x);
  }
  let total = 0;
  for (let r = 0; r < q.rows; r++) {
    score[r] = Math.exp(score[r]! - top);
    total += score[r]!;
  }
  // d/dw of -log p(e) is E_p[f] - f(e); averaged over the evidence rows.
  const scale = weight / evidence.length;
  for (let r = 0; r < q.rows; r++) {
    const share = (evidence.length * score[r]!) / total;
    for (const k of free) gradient[k]! += scale * share * q.features[r * width + k]!;
  }
  for (const e of evidence) for (const k of free) gradient[k]! -= scale * q.features[e * width + k]!;
}
