// Labels of drawn memories that tell near-identical ones apart, and a drawing whose labels do not overlap.

import type { Core } from "cytoscape";
import { preview } from "./dom";

export interface Labelled {
  id: string;
  content: string;
  valid_at?: string | null;
}

const words = (text: string) => text.replace(/\s+/g, " ").trim().split(" ");
const day = (t: string | null | undefined) => (t ? t.slice(0, 10) : "");

/** How many leading words two texts share. */
function sharedWords(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * A label per memory, at most ``n`` characters plus a date when one is needed. Two memories that open with the
 * same words ("Harbor's primary database is MySQL 5.7 …" / "… PostgreSQL 16 …") would share a plain preview:
 * each such label keeps the first two words, then "…" and the words from where they differ, and the day the memory
 * became valid. Labels still equal after that (the same text) get the day, then the id's last characters.
 */
export function distinctLabels(items: Labelled[], n = 40): Map<string, string> {
  const split = items.map((m) => words(m.content));
  const out = new Map<string, string>();
  items.forEach((m, i) => {
    const plain = preview(m.content, n);
    // From the first word where it parts from any memory whose preview it shares.
    let shared = Infinity;
    items.forEach((_, j) => {
      if (j !== i && preview(items[j].content, n) === plain) shared = Math.min(shared, sharedWords(split[i], split[j]));
    });
    if (shared === Infinity || shared === 0) {
      out.set(m.id, plain);
      return;
    }
    const lead = split[i].slice(0, Math.min(2, shared)).join(" ");
    const rest = split[i].slice(shared).join(" ");
    const body = rest ? preview(`${lead} … ${rest}`, n) : plain;
    out.set(m.id, m.valid_at ? `${body} · ${day(m.valid_at)}` : body);
  });
  const seen = new Map<string, string[]>();
  for (const [id, label] of out) seen.set(label, [...(seen.get(label) ?? []), id]);
  for (const [label, ids] of seen) {
    if (ids.length > 1) for (const id of ids) out.set(id, `${label} #${id.slice(-4)}`);
  }
  return out;
}

interface Box {
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}

const GAP = 4; // model pixels kept between two labels

/**
 * Move nodes apart until no two node boxes (the dot and its label) overlap: each overlapping pair is pushed
 * apart along the axis where they overlap least, half each. Ends when nothing overlaps (or after ``rounds``).
 */
export function spreadLabels(cy: Core, rounds = 300): void {
  const nodes = cy.nodes().toArray();
  const boxOf = (i: number): Box => nodes[i].boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false, includeOverlays: false } as any);
  for (let round = 0; round < rounds; round++) {
    let moved = false;
    const boxes = nodes.map((_, i) => boxOf(i));
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) + GAP;
        const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) + GAP;
        if (dx <= 0 || dy <= 0) continue;
        const pi = nodes[i].position();
        const pj = nodes[j].position();
        if (dy <= dx) {
          const s = pi.y < pj.y || (pi.y === pj.y && i < j) ? -1 : 1;
          nodes[i].position({ x: pi.x, y: pi.y + (s * dy) / 2 });
          nodes[j].position({ x: pj.x, y: pj.y - (s * dy) / 2 });
        } else {
          const s = pi.x < pj.x || (pi.x === pj.x && i < j) ? -1 : 1;
          nodes[i].position({ x: pi.x + (s * dx) / 2, y: pi.y });
          nodes[j].position({ x: pj.x - (s * dx) / 2, y: pj.y });
        }
        boxes[i] = boxOf(i);
        boxes[j] = boxOf(j);
        moved = true;
      }
    }
    if (!moved) break;
  }
}

const overlap = (a: Box, b: Box) => Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 0 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 0;
/** Where a link's label may sit: above its line, below it, further off on either side. */
const EDGE_LABEL_MARGINS = [-7, 9, -18, 20];

/**
 * Place each link's label where it covers no memory, no memory's label and no other link's label (above or below
 * its line, nearer or further); a label with no such place is hidden (class ``quiet``) and shows while the pointer
 * is on its link. Returns how many were hidden.
 */
export function placeEdgeLabels(cy: Core): number {
  const taken: Box[] = cy.nodes().map((n) => n.boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false, includeOverlays: false } as any));
  let hidden = 0;
  cy.edges().forEach((e) => {
    if (!e.data("label")) return;
    e.removeClass("quiet");
    for (const dy of EDGE_LABEL_MARGINS) {
      e.style("text-margin-y", dy);
      const box: Box = e.boundingBox({ includeLabels: true, includeNodes: false, includeEdges: false, includeOverlays: false } as any);
      if (!taken.some((t) => overlap(t, box))) {
        taken.push(box);
        return;
      }
    }
    e.removeStyle("text-margin-y");
    e.addClass("quiet");
    hidden++;
  });
  cy.on("mouseover", "edge.quiet", (evt) => evt.target.addClass("hover"));
  cy.on("mouseout", "edge.quiet", (evt) => evt.target.removeClass("hover"));
  return hidden;
}

/** Distance from point ``p`` to the segment ``a``-``b``. */
function toSegment(p: { x: number; y: number }, a: { x: number; y: number }, b: { x: number; y: number }): { d: number; nx: number; ny: number } {
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy || 1;
  const t = Math.max(0, Math.min(1, ((p.x - a.x) * vx + (p.y - a.y) * vy) / len2));
  const cx = a.x + t * vx;
  const cy = a.y + t * vy;
  const len = Math.sqrt(len2);
  return { d: Math.hypot(p.x - cx, p.y - cy), nx: -vy / len, ny: vx / len };
}

/**
 * Move a memory off every straight link that passes over it without joining it (a center between two memories
 * on opposite sides hid the link between them): sideways, a little past the line. A few rounds at most.
 */
export function clearLinkPaths(cy: Core, rounds = 20): void {
  const nodes = cy.nodes().toArray();
  const edges = cy.edges().toArray();
  for (let round = 0; round < rounds; round++) {
    let moved = false;
    for (const e of edges) {
      const a = e.source().position();
      const b = e.target().position();
      for (const n of nodes) {
        if (n.same(e.source()) || n.same(e.target())) continue;
        const p = n.position();
        const room = n.width() / 2 + 8;
        const { d, nx, ny } = toSegment(p, a, b);
        if (d >= room) continue;
        const side = (p.x - a.x) * nx + (p.y - a.y) * ny >= 0 ? 1 : -1;
        n.position({ x: p.x + side * nx * (room - d + 2), y: p.y + side * ny * (room - d + 2) });
        moved = true;
      }
    }
    if (!moved) break;
  }
}
