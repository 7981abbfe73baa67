// Graph explorers drawn with Cytoscape.js: the memories linked around one memory, and the knowledge
// graph (entities, facts true at a time, communities). Pan and zoom with mouse or touch; click to open.

import cytoscape, { Core, ElementDefinition } from "cytoscape";
import { ApiError, api, choices, query } from "./api";
import { clear, elsewhereOffer, errorBox, h, preview, select, short } from "./dom";

const PALETTE = ["#3b6ea8", "#c2553a", "#3f8f5b", "#8a5aa8", "#b8892b", "#2f8c8c", "#a8466f", "#6b7a2f", "#5a5a8a", "#8a6a4a"];

let current: Core | null = null;

/** The graph drawn last (for tests and benchmarks that check what is on screen). */
declare global {
  interface Window {
    knotworkGraph?: Core | null;
  }
}

function draw(container: HTMLElement, elements: ElementDefinition[], layout: cytoscape.LayoutOptions): Core {
  current?.destroy();
  current = cytoscape({
    container,
    elements,
    layout,
    minZoom: 0.1,
    maxZoom: 4,
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 10, "text-wrap": "ellipsis", "text-max-width": "120px", "background-color": "data(color)", width: 18, height: 18, color: "#222", "text-valign": "bottom", "text-margin-y": 3, "min-zoomed-font-size": 6, "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": "1px", "z-index": 10 } },
      // A retired memory (its validity has ended): faded, with a dashed ring, its label greyed.
      { selector: "node.retired", style: { "background-opacity": 0.35, "border-width": 2, "border-style": "dashed", "border-color": "#888", color: "#888" } },
      { selector: "node.center", style: { width: 28, height: 28, "border-width": 3, "border-color": "#111" } },
      { selector: "edge", style: { width: 1.5, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 8, color: "#555", "text-rotation": "autorotate", "min-zoomed-font-size": 6, "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": "1px", "text-margin-y": -7, "z-index": 1 } },
      { selector: "edge.invalid", style: { "line-style": "dashed" } },
      { selector: ":selected", style: { "border-width": 3, "border-color": "#f0a020" } },
    ],
  });
  // A small graph is fitted to the canvas at a readable size, not blown up to fill it.
  if (current.zoom() > 1.3) {
    current.zoom(1.3);
    current.center();
  }
  window.knotworkGraph = current;
  return current;
}

interface Related {
  depth: number;
  relationship: { id: string; from: string; to: string; type: string };
  memory: { id: string; content: string; category: string | null; invalid_at?: string | null };
}

const retiredClass = (invalidAt: string | null | undefined) => (invalidAt && Date.parse(invalidAt) <= Date.now() ? "retired" : "");
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function memoryGraphView(root: HTMLElement, id: string, params: URLSearchParams): Promise<void> {
  const c = await choices();
  const depth = params.get("depth") ?? "2";
  const direction = params.get("direction") ?? "both";
  const types = params.getAll("type");
  const form = h("form", { class: "filters" },
    h("label", {}, "depth ", select("depth", ["1", "2", "3", "4", "5"].map((d) => [d, d] as [string, string]), depth)),
    h("label", {}, "direction ", select("direction", [["both", "both"], ["outgoing", "outgoing"], ["incoming", "incoming"]], direction)),
    h("span", { class: "types" }, "types ", c.link_types.map((t) => h("label", {}, h("input", { type: "checkbox", name: "type", value: t, checked: types.includes(t) }), t))),
    h("button", { type: "submit" }, "Draw"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const d = new FormData(form);
    location.hash = `#/graph/${id}${query({ depth: String(d.get("depth")), direction: String(d.get("direction")), type: d.getAll("type").map(String) })}`;
  });
  const canvas = h("div", { class: "graph", id: "graph" });
  const info = h("p", { class: "muted", id: "graph-info" });
  clear(root, h("h1", {}, "Memory graph around ", h("a", { href: `#/memory/${id}` }, short(id))), form, info, canvas);
  try {
    const center = await api<{ id: string; content: string; category: string | null; invalid_at: string | null }>("GET", `/memories/${encodeURIComponent(id)}`);
    const rel = await api<{ related: Related[] }>("GET", `/memories/${center.id}/related${query({ depth, direction, type: types })}`);
    const cats = new Map<string, string>();
    const color = (cat: string | null) => {
      const key = cat ?? "";
      if (!cats.has(key)) cats.set(key, PALETTE[cats.size % PALETTE.length]);
      return cats.get(key)!;
    };
    const elements: ElementDefinition[] = [
      { data: { id: center.id, label: preview(center.content, 40), color: color(center.category), depth: 0 }, classes: `center ${retiredClass(center.invalid_at)}`.trim() },
    ];
    for (const r of rel.related) {
      elements.push({ data: { id: r.memory.id, label: preview(r.memory.content, 40), color: color(r.memory.category), depth: r.depth }, classes: retiredClass(r.memory.invalid_at) });
    }
    for (const r of rel.related) {
      const e = r.relationship;
      elements.push({ data: { id: `e${e.id}`, source: e.from, target: e.to, label: e.type } });
    }
    const retiredCount = elements.filter((e) => (e.classes ?? "").includes("retired")).length;
    info.textContent = `${plural(rel.related.length + 1, "memory", "memories")}, ${plural(rel.related.length, "link", "links")}${retiredCount ? ` (${retiredCount} retired: faded, dashed)` : ""}. Click a memory to open it; drag to pan, scroll to zoom.`;
    const cy = draw(canvas, elements, { name: "concentric", concentric: (n: any) => 10 - n.data("depth"), levelWidth: () => 1, minNodeSpacing: 110, animate: false } as any);
    cy.on("tap", "node", (evt) => {
      location.hash = `#/memory/${evt.target.id()}`;
    });
  } catch (err) {
    clear(canvas, errorBox((err as ApiError).message));
  }
}

interface KnowledgeView {
  as_of: string;
  earliest: string | null;
  latest: string | null;
  entities: { id: string; name: string; type: string | null; summary: string }[];
  facts: {
    id: string; subject: { id: string }; object: { id: string }; predicate: string; fact: string; invalid_at: string | null;
    extractor: string; confidence: number;
  }[];
  communities: { id: string; name: string; members: string[] }[];
  truncated: boolean;
}

export async function knowledgeView(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const c = await choices();
  const workspace = params.get("workspace") ?? "";
  const sure = params.get("min_confidence") ?? "";
  const ws: [string, string][] = [["", "server default"], ["*", "every workspace"], ...c.workspaces.map((w) => [w, w] as [string, string])];
  const picker = select("workspace", ws, workspace);
  // Facts below this confidence are left out of the drawing and the entity's list.
  // The server's default (KNOTWORK_KG_MIN_CONFIDENCE) hides the less sure extracted facts; 0 shows every stored one.
  const floor = select("min_confidence", [["", "server default"], ["0", "0 (all stored)"], ["0.5", "0.5"], ["0.8", "0.8"],
    ["0.9", "0.9"], ["1", "1 (certain)"]], sure);
  const slider = h("input", { type: "range", min: "0", max: "1000", value: "1000", id: "as-of", "aria-label": "as of" });
  const when = h("output", { id: "as-of-text" }, "now");
  const info = h("p", { class: "muted", id: "graph-info" });
  const canvas = h("div", { class: "graph", id: "graph" });
  const side = h("aside", { class: "side", id: "entity" }, h("p", { class: "muted" }, "Click an entity to see its facts."));
  const finder = h("form", { class: "bar", id: "find", autocomplete: "off" },
    h("input", { type: "search", name: "find", placeholder: "Find entities and facts", value: params.get("find") ?? "", "aria-label": "find" }),
    h("button", { type: "submit" }, "Find"));
  const found = h("section", { id: "found" });
  clear(root,
    h("h1", {}, "Knowledge graph"),
    finder,
    h("div", { class: "filters" }, h("label", {}, "workspace ", picker), h("label", {}, "min confidence ", floor),
      h("label", { class: "slider" }, "as of ", slider, " ", when)),
    found,
    info,
    h("div", { class: "split" }, canvas, side),
  );
  const reopen = (to: { workspace?: string } = {}) => {
    const find = (finder.elements.namedItem("find") as HTMLInputElement).value.trim();
    location.hash = `#/knowledge${query({ workspace: to.workspace ?? picker.value, min_confidence: floor.value || null, find: find || null })}`;
  };
  picker.addEventListener("change", () => reopen());
  floor.addEventListener("change", () => reopen());
  finder.addEventListener("submit", (e) => {
    e.preventDefault();
    reopen();
  });

  let span: [number, number] | null = null;
  const asOf = (): string | null => {
    if (!span || slider.value === slider.max) return null;
    const t = span[0] + ((span[1] - span[0]) * Number(slider.value)) / Number(slider.max);
    return new Date(t).toISOString();
  };

  const showEntity = async (ent: { id: string; name: string; type: string | null; summary: string }) => {
    clear(side, h("h3", {}, ent.name), ent.type ? h("p", { class: "badge" }, ent.type) : null, h("p", {}, ent.summary));
    try {
      const got = await api<any>(
        "GET", `/entities/${encodeURIComponent(ent.id)}/facts${query({
          workspace, as_of: asOf(), include_invalid: !asOf(), min_confidence: sure || null })}`);
      const facts: { fact: string; invalid_at: string | null; sources: string[]; extractor: string; confidence: number }[] =
        Array.isArray(got) ? got : got.facts ?? [];
      side.append(h("ul", { class: "facts" }, facts.map((f) => h("li", { class: f.invalid_at ? "retired" : "" },
        f.fact, " ", h("span", { class: "badge stated", title: "who stated it, and how sure it was" },
          `${f.extractor} ${Math.floor(f.confidence * 100) / 100}`), " ",
        f.sources.slice(0, 3).map((s) => h("a", { href: `#/memory/${s}`, class: "chip" }, short(s)))))));
    } catch (err) {
      side.append(errorBox((err as ApiError).message));
    }
  };

  // Entities and facts of the workspace matching what was typed; when none match here but some do in other
  // workspaces this caller reads, a button per workspace opens the page there with the same words.
  const find = async (words: string) => {
    const body = { query: words, workspace: workspace || null, limit: 20 };
    try {
      const [nodes, facts] = await Promise.all([
        api<{ entities: { entity: KnowledgeView["entities"][number] }[]; elsewhere?: Record<string, number> }>("POST", "/search/entities", body),
        api<{ facts: { fact: { id: string; fact: string; invalid_at: string | null } }[]; elsewhere?: Record<string, number> }>(
          "POST", "/search/facts", { ...body, min_confidence: sure ? Number(sure) : null }),
      ]);
      const go = (w: string) => reopen({ workspace: w });
      clear(found,
        h("h3", {}, "Entities"),
        nodes.entities.length
          ? h("ul", { class: "facts", id: "found-entities" }, nodes.entities.map(({ entity: e }) => h("li", {},
            h("button", { type: "button", class: "link", "data-entity": e.id, onclick: () => void showEntity(e) }, e.name),
            e.type ? ` [${e.type}]` : "")))
          : h("p", { class: "muted" }, `No entities found for "${words}"${nodes.elsewhere && Object.keys(nodes.elsewhere).length ? " here" : ""}.`),
        elsewhereOffer(nodes.elsewhere, go, "elsewhere-entities"),
        h("h3", {}, "Facts"),
        facts.facts.length
          ? h("ul", { class: "facts", id: "found-facts" }, facts.facts.map(({ fact: f }) => h("li", { class: f.invalid_at ? "retired" : "" }, f.fact)))
          : h("p", { class: "muted" }, `No facts found for "${words}"${facts.elsewhere && Object.keys(facts.elsewhere).length ? " here" : ""}.`),
        elsewhereOffer(facts.elsewhere, go, "elsewhere-facts"),
      );
    } catch (err) {
      clear(found, errorBox((err as ApiError).message));
    }
  };

  const load = async () => {
    try {
      const kg = await api<KnowledgeView>("GET", `/ui/api/knowledge${query({ workspace, as_of: asOf(), min_confidence: sure || null })}`);
      if (!span && kg.earliest) span = [Date.parse(kg.earliest), Math.max(Date.parse(kg.as_of), Date.parse(kg.latest ?? kg.as_of))];
      when.textContent = asOf() ? kg.as_of.slice(0, 16).replace("T", " ") : "now";
      const community = new Map<string, number>();
      kg.communities.forEach((cm, i) => cm.members.forEach((e) => community.set(e, i)));
      const linked = new Set(kg.facts.flatMap((f) => [f.subject.id, f.object.id]));
      const elements: ElementDefinition[] = kg.entities.filter((e) => linked.has(e.id)).map((e) => ({
        data: { id: e.id, label: e.name, color: PALETTE[(community.get(e.id) ?? 0) % PALETTE.length] },
      }));
      for (const f of kg.facts) elements.push({ data: { id: `f${f.id}`, source: f.subject.id, target: f.object.id, label: f.predicate }, classes: f.invalid_at ? "invalid" : "" });
      info.textContent = `${linked.size} entities, ${kg.facts.length} facts true ${asOf() ? "then" : "now"}, ${kg.communities.length} communities${kg.truncated ? " (the largest only)" : ""}.`;
      const cy = draw(canvas, elements, { name: "cose", animate: false, randomize: false, nodeRepulsion: () => 8000, idealEdgeLength: () => 60, numIter: 400 } as any);
      cy.on("tap", "node", (evt) => {
        const ent = kg.entities.find((e) => e.id === evt.target.id());
        if (ent) void showEntity(ent);
      });
    } catch (err) {
      clear(canvas, errorBox((err as ApiError).message));
    }
  };
  let timer: number | undefined;
  slider.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(load, 200);
  });
  const words = (params.get("find") ?? "").trim();
  await Promise.all([load(), words ? find(words) : Promise.resolve()]);
}
