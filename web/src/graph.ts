// Graph explorers drawn with Cytoscape.js: the memories linked around one memory, and the knowledge
// graph (entities, facts true at a time, communities). Pan and zoom with mouse or touch; click to open.

import cytoscape, { Core, ElementDefinition } from "cytoscape";
import { ApiError, api, choices, query } from "./api";
import { clear, elsewhereOffer, errorBox, h, select, short } from "./dom";
import { clearLinkPaths, distinctLabels, placeEdgeLabels, spreadLabels } from "./labels";

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
      { selector: "node", style: { label: "data(label)", "font-size": 10, "text-wrap": "wrap", "text-max-width": "130px", "background-color": "data(color)", width: 18, height: 18, color: "#222", "text-valign": "bottom", "text-margin-y": 3, "min-zoomed-font-size": 6, "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": "1px", "z-index": 10 } },
      // A retired memory (its validity has ended): faded, with a dashed ring, its label greyed.
      { selector: "node.retired", style: { "background-opacity": 0.35, "border-width": 2, "border-style": "dashed", "border-color": "#888", color: "#888" } },
      { selector: "node.center", style: { width: 28, height: 28, "border-width": 3, "border-color": "#111" } },
      { selector: "edge", style: { width: 1.5, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 8, color: "#555", "text-rotation": "autorotate", "min-zoomed-font-size": 6, "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": "1px", "text-margin-y": -7, "z-index": 1 } },
      // A fact shown at a past time and retired since: dashed and greyed.
      { selector: "edge.retired", style: { "line-style": "dashed", "line-color": "#bbb", "target-arrow-color": "#bbb", color: "#888" } },
      // A link label with no free place to sit (placeEdgeLabels) shows only while the pointer is on its link.
      { selector: "edge.quiet", style: { label: "" } },
      { selector: "edge.quiet.hover", style: { label: "data(label)", "z-index": 20 } },
      { selector: ":selected", style: { "border-width": 3, "border-color": "#f0a020" } },
    ],
  });
  fitReadable(current);
  window.knotworkGraph = current;
  return current;
}

/** Fit the drawing to the canvas, but a small graph at a readable size, not blown up to fill it. */
function fitReadable(cy: Core): void {
  cy.fit(undefined, 30);
  if (cy.zoom() > 1.3) {
    cy.zoom(1.3);
    cy.center();
  }
}

interface Link {
  id: string;
  from: string;
  to: string;
  type: string;
}

interface Related {
  depth: number;
  relationship: Link;
  memory: { id: string; content: string; category: string | null; valid_at?: string | null; invalid_at?: string | null };
}

/** What ``GET /memories/{id}/graph`` answers: the nodes and every edge among them. */
interface GraphAnswer {
  center: string;
  nodes: { id: string }[];
  edges: Link[];
  truncated: boolean;
}

/** Drawings of at most this many elements have their labels moved apart (it costs a pass per overlap). */
const SPREAD_MOST = 400;

/** The deepest walk ``/memories/{id}/graph`` takes. */
const GRAPH_DEPTH = 3;

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
    const center = await api<{ id: string; content: string; category: string | null; valid_at: string; invalid_at: string | null }>("GET", `/memories/${encodeURIComponent(id)}`);
    // The memories come from the walk the filters ask for (depth, direction, types); the links drawn are every
    // link among them: those the walk went through and every edge the graph API has between two of them.
    const [rel, around] = await Promise.all([
      api<{ related: Related[] }>("GET", `/memories/${center.id}/related${query({ depth, direction, type: types })}`),
      api<GraphAnswer>("GET", `/memories/${center.id}/graph${query({ max_depth: Math.min(Number(depth), GRAPH_DEPTH), max_nodes: 100 })}`),
    ]);
    const drawn = new Set([center.id, ...rel.related.map((r) => r.memory.id)]);
    const links = new Map<string, Link>();
    for (const r of rel.related) links.set(r.relationship.id, r.relationship);
    for (const e of around.edges) {
      if (drawn.has(e.from) && drawn.has(e.to) && (!types.length || types.includes(e.type))) links.set(e.id, e);
    }
    const label = distinctLabels([center, ...rel.related.map((r) => r.memory)]);
    const cats = new Map<string, string>();
    const color = (cat: string | null) => {
      const key = cat ?? "";
      if (!cats.has(key)) cats.set(key, PALETTE[cats.size % PALETTE.length]);
      return cats.get(key)!;
    };
    const elements: ElementDefinition[] = [
      { data: { id: center.id, label: label.get(center.id), color: color(center.category), depth: 0 }, classes: `center ${retiredClass(center.invalid_at)}`.trim() },
    ];
    for (const r of rel.related) {
      elements.push({ data: { id: r.memory.id, label: label.get(r.memory.id), color: color(r.memory.category), depth: r.depth }, classes: retiredClass(r.memory.invalid_at) });
    }
    for (const e of links.values()) {
      elements.push({ data: { id: `e${e.id}`, source: e.from, target: e.to, label: e.type } });
    }
    const retiredCount = elements.filter((e) => (e.classes ?? "").includes("retired")).length;
    info.textContent = `${plural(rel.related.length + 1, "memory", "memories")}, ${plural(links.size, "link", "links")}${retiredCount ? ` (${retiredCount} retired: faded, dashed)` : ""}. Click a memory to open it; drag to pan, scroll to zoom.`;
    const cy = draw(canvas, elements, { name: "concentric", concentric: (n: any) => 10 - n.data("depth"), levelWidth: () => 1, minNodeSpacing: 110, animate: false } as any);
    for (let i = 0; i < 3; i++) {  // no memory on a link it is not part of, no label over another
      clearLinkPaths(cy);
      spreadLabels(cy);
    }
    const quiet = placeEdgeLabels(cy);
    if (quiet) info.textContent += ` ${plural(quiet, "link label shows", "link labels show")} on hover only, where it would cover another.`;
    fitReadable(cy);
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
  // The workspace shown stays chosen even when the list of workspaces was read before it held anything.
  const named = workspace && workspace !== "*" && !c.workspaces.includes(workspace) ? [workspace] : [];
  const ws: [string, string][] = [["", "server default"], ["*", "every workspace"], ...[...c.workspaces, ...named].map((w) => [w, w] as [string, string])];
  const picker = select("workspace", ws, workspace);
  // Facts below this confidence are left out of the drawing and the entity's list.
  // The server's default (KNOTWORK_KG_MIN_CONFIDENCE) hides the less sure extracted facts; 0 shows every stored one.
  const floor = select("min_confidence", [["", "server default"], ["0", "0 (all stored)"], ["0.5", "0.5"], ["0.8", "0.8"],
    ["0.9", "0.9"], ["1", "1 (certain)"]], sure);
  const slider = h("input", { type: "range", min: "0", max: "1000", value: "1000", id: "as-of", "aria-label": "as of" });
  const when = h("output", { id: "as-of-text" }, "now");
  const info = h("p", { class: "muted", id: "graph-info" });
  // An empty graph here (the README's memories are in a workspace; the page opens on the server's default)
  // offers the workspaces that hold memories, one button each.
  const others = h("p", { class: "elsewhere", id: "graph-elsewhere", hidden: true });
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
    others,
    h("div", { class: "split" }, canvas, side),
  );
  const reopen = (to: { workspace?: string; min_confidence?: string } = {}) => {
    const find = (finder.elements.namedItem("find") as HTMLInputElement).value.trim();
    location.hash = `#/knowledge${query({ workspace: to.workspace ?? workspace, min_confidence: (to.min_confidence ?? floor.value) || null, find: find || null })}`;
  };
  picker.addEventListener("change", () => reopen({ workspace: picker.value }));
  floor.addEventListener("change", () => reopen());
  finder.addEventListener("submit", (e) => {
    e.preventDefault();
    reopen();
  });

  let span: [number, number] | null = null;
  // A link may name the time (#/knowledge?as_of=2025-04-01): that instant exactly, until the slider moves.
  let pinned: string | null = params.get("as_of");
  const asOf = (): string | null => {
    if (pinned) return pinned;
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
      if (!span && kg.earliest) span = [Date.parse(kg.earliest), Math.max(Date.now(), Date.parse(kg.latest ?? kg.as_of))];
      if (pinned && span) slider.value = String(Math.round(Math.min(1, Math.max(0, (Date.parse(kg.as_of) - span[0]) / (span[1] - span[0] || 1))) * Number(slider.max)));
      when.textContent = asOf() ? kg.as_of.slice(0, 16).replace("T", " ") : "now";
      when.dataset.asOf = kg.as_of; // the exact instant the drawing is of
      const community = new Map<string, number>();
      kg.communities.forEach((cm, i) => cm.members.forEach((e) => community.set(e, i)));
      const linked = new Set(kg.facts.flatMap((f) => [f.subject.id, f.object.id]));
      const elements: ElementDefinition[] = kg.entities.filter((e) => linked.has(e.id)).map((e) => ({
        data: { id: e.id, label: e.name, color: PALETTE[(community.get(e.id) ?? 0) % PALETTE.length] },
      }));
      // Every fact true at the time shown; one retired since (its validity ended before now) is drawn dashed.
      const retired = (f: KnowledgeView["facts"][number]) => f.invalid_at !== null && Date.parse(f.invalid_at) <= Date.now();
      for (const f of kg.facts) elements.push({ data: { id: `f${f.id}`, source: f.subject.id, target: f.object.id, label: f.predicate }, classes: retired(f) ? "retired" : "" });
      const gone = kg.facts.filter(retired).length;
      info.textContent = `${linked.size} entities, ${kg.facts.length} facts true ${asOf() ? "then" : "now"}${gone ? ` (${gone} retired since: dashed)` : ""}, ${kg.communities.length} communities${kg.truncated ? " (the largest only)" : ""}.`;
      // Nothing drawn now: say why, when it is the less sure facts left out (the server's default hides them),
      // and offer the workspaces that hold memories.
      others.hidden = true;
      if (kg.facts.length === 0 && !asOf()) {
        const all = sure === "0" ? null
          : await api<KnowledgeView>("GET", `/ui/api/knowledge${query({ workspace, min_confidence: 0 })}`);
        const elsewhere = workspace === "*" ? [] : c.workspaces.filter((w) => w && w !== workspace);
        const hidden = all ? all.facts.length : 0;
        if (hidden || elsewhere.length) {
          others.hidden = false;
          clear(others, "Nothing drawn here. ",
            hidden ? h("button", { type: "button", class: "link", id: "show-less-sure", onclick: () => reopen({ min_confidence: "0" }) },
              "Show the less sure facts") : null,
            hidden && elsewhere.length ? " · " : null,
            elsewhere.length ? ["Workspaces with memories: ",
              ...elsewhere.map((w) => h("button", { type: "button", class: "link", "data-workspace": w, onclick: () => reopen({ workspace: w }) }, w)),
              h("button", { type: "button", class: "link", "data-workspace": "*", onclick: () => reopen({ workspace: "*" }) }, "every workspace")] : null);
        }
      }
      const cy = draw(canvas, elements, { name: "cose", animate: false, randomize: false, nodeRepulsion: () => 8000, idealEdgeLength: () => 110, numIter: 400 } as any);
      if (elements.length <= SPREAD_MOST) {
        for (let i = 0; i < 2; i++) {
          clearLinkPaths(cy, 10);
          spreadLabels(cy, 100);
        }
        placeEdgeLabels(cy);
        fitReadable(cy);
      }
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
    pinned = null;
    window.clearTimeout(timer);
    timer = window.setTimeout(load, 200);
  });
  const words = (params.get("find") ?? "").trim();
  await Promise.all([load(), words ? find(words) : Promise.resolve()]);
}
