// The co-mention graph as SVG: a small force layout (repulsion between every pair, springs along
// links, a pull to the centre), computed once per graph from a deterministic start, so the same
// data always draws the same picture. Each node is a link to the entity's page (keyboard too).
import { useMemo } from 'preact/hooks';
import type { EntityGraphQuery } from '../../client/src/index.ts';
import { href } from './router.ts';

type Graph = EntityGraphQuery['entityGraph'];
type Placed = { id: number; name: string; type: string; mentions: number; x: number; y: number; r: number };

const WIDTH = 640;
const HEIGHT = 420;
const MARGIN_X = 60;
const MARGIN_TOP = 28;
const MARGIN_BOTTOM = 40;
const GRAVITY = 0.4;

export const TYPE_COLOURS: Record<string, string> = {
  person: '#2563eb',
  location: '#059669',
  organization: '#d97706',
  project: '#7c3aed',
  mention: '#db2777',
  hashtag: '#0891b2',
  email: '#64748b',
  url: '#64748b',
  date: '#a16207',
  other: '#475569',
};

type Link = { a: number; b: number; weight: number };
/** One run of the layout: the nodes, their links by index, and each step's displacement. */
type Simulation = { nodes: Placed[]; links: Link[]; k: number; maxWeight: number; dx: Float64Array; dy: Float64Array };

/** A deterministic start: the first node at the centre, the others on three rings around it. */
function startPositions(graph: Graph): Placed[] {
  const n = graph.nodes.length;
  const maxMentions = Math.max(1, ...graph.nodes.map((e) => e.mentionCount));
  return graph.nodes.map((e, i) => {
    const angle = (2 * Math.PI * i) / Math.max(1, n);
    const radius = i === 0 ? 0 : 120 + 40 * (i % 3);
    return {
      id: e.id,
      name: e.name,
      type: e.type,
      mentions: e.mentionCount,
      x: WIDTH / 2 + radius * Math.cos(angle),
      y: HEIGHT / 2 + radius * Math.sin(angle),
      r: 6 + 14 * Math.sqrt(e.mentionCount / maxMentions),
    };
  });
}

/** The graph's links between placed nodes, by their index (a link to a node not shown is left out). */
function linksBetween(graph: Graph, nodes: Placed[]): Link[] {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  return graph.links.flatMap((l) => {
    const a = index.get(l.sourceId);
    const b = index.get(l.targetId);
    return a === undefined || b === undefined ? [] : [{ a, b, weight: l.memories + l.turns }];
  });
}

/** Repulsion k²/d between every pair (two nodes on one spot are pushed apart along a fixed line). */
function repel({ nodes, k, dx, dy }: Simulation) {
  const n = nodes.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let x = nodes[i]!.x - nodes[j]!.x;
      let y = nodes[i]!.y - nodes[j]!.y;
      let d = Math.sqrt(x * x + y * y);
      if (d < 0.01) {
        x = 0.01 * (i - j);
        y = 0.01;
        d = Math.sqrt(x * x + y * y);
      }
      const push = (k * k) / d / d;
      dx[i] = dx[i]! + x * push;
      dy[i] = dy[i]! + y * push;
      dx[j] = dx[j]! - x * push;
      dy[j] = dy[j]! - y * push;
    }
  }
}

/** Attraction d²/k along links, heavier links pulling harder. */
function attract({ nodes, links, k, maxWeight, dx, dy }: Simulation) {
  for (const { a, b, weight } of links) {
    const x = nodes[b]!.x - nodes[a]!.x;
    const y = nodes[b]!.y - nodes[a]!.y;
    const d = Math.sqrt(x * x + y * y) || 0.01;
    const pull = (d / k) * (0.6 + weight / maxWeight);
    dx[a] = dx[a]! + x * pull;
    dy[a] = dy[a]! + y * pull;
    dx[b] = dx[b]! - x * pull;
    dy[b] = dy[b]! - y * pull;
  }
}

/** Moves each node along its displacement, at most `temperature`. */
function move({ nodes, k, dx, dy }: Simulation, temperature: number) {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    // Gravity: a spring to the centre, so unlinked nodes stay near the others.
    const cx = WIDTH / 2 - node.x;
    const cy = HEIGHT / 2 - node.y;
    const toCentre = (GRAVITY * Math.sqrt(cx * cx + cy * cy)) / k;
    const gx = dx[i]! + cx * toCentre;
    const gy = dy[i]! + cy * toCentre;
    const length = Math.sqrt(gx * gx + gy * gy) || 1;
    const step = Math.min(length, temperature);
    node.x += (gx / length) * step;
    node.y += (gy / length) * step;
  }
}

/** Fits the drawing into the box (labels sit under their nodes: more room at the bottom). */
function fitToBox(nodes: Placed[]) {
  if (nodes.length <= 1) return;
  const xs = nodes.map((node) => node.x);
  const ys = nodes.map((node) => node.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = Math.min(
    (WIDTH - 2 * MARGIN_X) / Math.max(1, maxX - minX),
    (HEIGHT - MARGIN_TOP - MARGIN_BOTTOM) / Math.max(1, maxY - minY),
    2,
  );
  const offsetX = (WIDTH - scale * (maxX - minX)) / 2;
  const offsetY = MARGIN_TOP + (HEIGHT - MARGIN_TOP - MARGIN_BOTTOM - scale * (maxY - minY)) / 2;
  for (const node of nodes) {
    node.x = offsetX + (node.x - minX) * scale;
    node.y = offsetY + (node.y - minY) * scale;
  }
}

export function layout(
  graph: Graph,
  iterations = 300,
): { nodes: Placed[]; links: { a: Placed; b: Placed; weight: number }[] } {
  const nodes = startPositions(graph);
  const links = linksBetween(graph, nodes);
  const n = nodes.length;
  // Fruchterman-Reingold: repulsion between every pair, attraction along links, a gentle pull to
  // the centre so loose nodes stay in the picture, and a step size that cools from a tenth of the
  // width to nothing.
  const simulation: Simulation = {
    nodes,
    links,
    k: 0.6 * Math.sqrt((WIDTH * HEIGHT) / Math.max(1, n)),
    maxWeight: Math.max(1, ...links.map((l) => l.weight)),
    dx: new Float64Array(n),
    dy: new Float64Array(n),
  };
  const start = WIDTH / 10;
  for (let step = 0; step < iterations; step++) {
    simulation.dx.fill(0);
    simulation.dy.fill(0);
    repel(simulation);
    attract(simulation);
    move(simulation, start * (1 - step / iterations) + 0.5);
  }
  fitToBox(nodes);
  return { nodes, links: links.map((l) => ({ a: nodes[l.a]!, b: nodes[l.b]!, weight: l.weight })) };
}

export function EntityGraphView({ graph, current, label }: { graph: Graph; current?: number; label: string }) {
  const placed = useMemo(() => layout(graph), [graph]);
  if (graph.nodes.length === 0) return <p class="muted">No entities yet.</p>;
  const maxWeight = Math.max(1, ...placed.links.map((l) => l.weight));
  return (
    <svg class="graph" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label={label}>
      <g class="links">
        {placed.links.map((l) => (
          <line
            key={`${l.a.id}-${l.b.id}`}
            x1={l.a.x}
            y1={l.a.y}
            x2={l.b.x}
            y2={l.b.y}
            stroke-width={1 + 4 * (l.weight / maxWeight)}
          >
            <title>{`${l.a.name} + ${l.b.name}: ${l.weight} together`}</title>
          </line>
        ))}
      </g>
      <g class="nodes">
        {placed.nodes.map((node) => (
          <a
            key={node.id}
            href={href('entities', node.id)}
            class={node.id === current ? 'node current' : 'node'}
            aria-label={`${node.name} (${node.type}, ${node.mentions} mentions)`}
          >
            <circle cx={node.x} cy={node.y} r={node.r} fill={TYPE_COLOURS[node.type] ?? TYPE_COLOURS.other} />
            <text x={node.x} y={node.y + node.r + 12} text-anchor="middle">
              {node.name}
            </text>
          </a>
        ))}
      </g>
    </svg>
  );
}
