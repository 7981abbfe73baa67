// The dashboard: counts, health, latency, token savings, the extraction queue, and activity over time
// (stacked bars drawn as plain SVG).

import { ApiError, api, query } from "./api";
import { clear, errorBox, h } from "./dom";

const SVG = "http://www.w3.org/2000/svg";
const PALETTE = ["#3b6ea8", "#c2553a", "#3f8f5b", "#8a5aa8", "#b8892b", "#2f8c8c", "#a8466f", "#6b7a2f", "#999999"];

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...kids: Node[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...kids);
  return el;
}

/** Stacked bars: one bar per period, one colour per key. */
export function stackedBars(periods: string[], series: Record<string, number[]>, title: string, none = "(none)"): HTMLElement {
  const W = 460, H = 200, L = 36, B = 30, T = 8;
  const keys = Object.keys(series);
  const totals = periods.map((_, i) => keys.reduce((s, k) => s + series[k][i], 0));
  const max = Math.max(1, ...totals);
  const step = (W - L - 8) / Math.max(1, periods.length);
  const bar = Math.max(2, Math.min(40, step * 0.7));
  const y = (v: number) => T + (H - T - B) * (1 - v / max);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title });
  for (const tick of [0, max / 2, max]) {
    chart.append(svg("line", { x1: L, x2: W - 4, y1: y(tick), y2: y(tick), class: "grid" }));
    chart.append(svg("text", { x: L - 4, y: y(tick) + 3, "text-anchor": "end", class: "tick" }, document.createTextNode(Number.isInteger(tick) ? String(tick) : tick.toFixed(1))));
  }
  periods.forEach((p, i) => {
    let base = 0;
    const x = L + i * step + (step - bar) / 2;
    keys.forEach((k, j) => {
      const v = series[k][i];
      if (!v) return;
      const r = svg("rect", { x, y: y(base + v), width: bar, height: y(base) - y(base + v), fill: PALETTE[j % PALETTE.length], class: "bar" });
      r.append(svg("title", {}, document.createTextNode(`${p} · ${k || none}: ${v}`)));
      chart.append(r);
      base += v;
    });
    const every = Math.ceil(periods.length / 8);
    if (i % every === 0) chart.append(svg("text", { x: x + bar / 2, y: H - B + 14, "text-anchor": "middle", class: "tick" }, document.createTextNode(p)));
  });
  const legend = h("ul", { class: "legend" }, keys.map((k, j) => h("li", {}, h("span", { class: "swatch", style: `background:${PALETTE[j % PALETTE.length]}` }), k || none)));
  return h("figure", { class: "card chart-card", "data-chart": title }, h("figcaption", {}, title), chart, legend);
}

function stat(label: string, value: string | number | null | undefined, note = ""): HTMLElement {
  return h("div", { class: "stat" }, h("div", { class: "value" }, value === null || value === undefined ? "–" : String(value)), h("div", { class: "label" }, label), note ? h("div", { class: "note" }, note) : null);
}

function ms(v: number | null | undefined): string {
  return v === null || v === undefined ? "–" : `${v.toFixed(1)} ms`;
}

function bytes(n: number): string {
  return n > 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`;
}

/** What only an unrestricted token may read (the whole store's statistics, the extraction queue): null when the
 * server refuses it to this token, whose dashboard then shows what its workspaces hold. */
async function ownerOnly(path: string): Promise<any | null> {
  try {
    return await api<any>("GET", path);
  } catch (err) {
    if (err instanceof ApiError && err.field === "token" && err.status < 500 && err.status !== 401) return null;
    throw err;
  }
}

const OWNERS = "the owner's token shows it (this one is limited to some workspaces)";

export async function dashboardView(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const bucket = params.get("bucket") ?? "month";
  // Counted by when each memory became true (valid_at: the age every view shows) unless asked by when it was stored.
  const by = params.get("by") === "created" ? "created" : "valid";
  clear(root, h("h1", {}, "Dashboard"), h("p", { class: "muted" }, "Loading…"));
  try {
    const [whole, status, latency, savings, queue, activity] = await Promise.all([
      ownerOnly("/stats"),
      api<any>("GET", "/status"),
      api<any>("GET", "/ui/api/latency"),
      api<any>("GET", "/ui/api/token_savings"),
      ownerOnly("/extraction"),
      api<any>("GET", `/ui/api/activity${query({ bucket, by })}`),
    ]);
    // A limited token: the counts of its workspaces (and the global scope's), from /status.
    const stats = whole ?? { memories: status.memories, links: status.links, vectors: status.vectors, retired: null, size_bytes: null, embedded_memories: null };
    const missing = whole ? whole.memories - whole.embedded_memories : 0;
    const health = whole ? [
      missing > 0 ? `${missing} memories have no vector (run reembed)` : "every memory has a vector",
      stats.retired ? `${stats.retired} retired (no longer valid)` : "none retired",
    ] : [`Store-wide health: ${OWNERS}.`];
    if (queue) health.push(queue.counts?.failed ? `${queue.counts.failed} extractions failed` : "no failed extraction");
    const backlog = status.graph_backlog;
    if (backlog) {
      const waiting = backlog.pending + backlog.running;
      health.push(waiting ? `${waiting} memories waiting to be read into the knowledge graph` : "knowledge graph up to date");
      if (backlog.failed) health.push(`${backlog.failed} memories could not be read into the knowledge graph`);
    }
    const worker = status.graph_worker;
    if (worker) {
      const last = worker.last_batch ? `, last batch ${String(worker.last_batch.at).slice(0, 19).replace("T", " ")} UTC (${worker.last_batch.memories})` : "";
      health.push(`graph worker: ${worker.process ? "a process" : "in each process"}${last}`);
    }
    for (const f of status.graph_failures ?? []) health.push(`graph failed: ${f.memory_id} after ${f.attempts} tries (${f.given_up ? "given up" : "tried again"}): ${f.error ?? "no reason recorded"}`);
    const go = (b: string, w: string) => { location.hash = `#/dashboard?bucket=${b}&by=${w}`; };
    const buckets = h("label", {}, "per ", h("select", { id: "bucket", onchange: (e: Event) => go((e.target as HTMLSelectElement).value, by) },
      ["day", "month", "year"].map((b) => h("option", { value: b, selected: b === bucket }, b))));
    const times = h("label", {}, " of ", h("select", { id: "by", onchange: (e: Event) => go(bucket, (e.target as HTMLSelectElement).value) },
      [["valid", "when they became true"], ["created", "when they were stored"]].map(([v, text]) => h("option", { value: v, selected: v === by }, text))));
    clear(root,
      h("h1", {}, "Dashboard"),
      h("div", { class: "stats" },
        stat("memories", stats.memories),
        stat("retired", stats.retired),
        stat("links", stats.links),
        stat("vectors", stats.vectors, whole ? `${stats.embedded_memories} memories embedded` : ""),
        stat("store size", whole ? bytes(stats.size_bytes) : null),
        stat("schema", status.schema_version, status.embedder),
      ),
      h("div", { class: "cols3" },
        h("section", { class: "card", id: "health" }, h("h2", {}, "Health"), h("ul", {}, health.map((x) => h("li", {}, x))), h("p", { class: "muted store-path", title: status.store }, `${status.store} · knotwork ${status.version}`)),
        h("section", { class: "card", id: "latency" }, h("h2", {}, "Latency (this server)"),
          h("table", {},
            h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "calls"), h("th", {}, "p50"), h("th", {}, "p95"))),
            h("tbody", {}, (["recall", "search"] as const).map((k) => h("tr", {}, h("td", {}, k), h("td", { class: "num" }, latency[k].count), h("td", { class: "num" }, ms(latency[k].p50_ms)), h("td", { class: "num" }, ms(latency[k].p95_ms))))),
          )),
        h("section", { class: "card", id: "savings" }, h("h2", {}, "Token savings"),
          savings.file === null
            ? h("p", { class: "muted" }, "Off: set KNOTWORK_METRICS_FILE to record what each answer cost.")
            : h("div", {},
              h("p", {}, savings.savings_pct === null ? "No call recorded yet." : `${savings.savings_pct}% fewer tokens than full JSON over ${savings.calls} calls`),
              h("table", {}, h("tbody", {}, savings.operations.map((o: any) => h("tr", {}, h("td", {}, o.operation), h("td", { class: "num" }, o.calls), h("td", { class: "num" }, o.savings_pct === null ? "–" : `${o.savings_pct}%`)))))),
        ),
        h("section", { class: "card", id: "queue" }, h("h2", {}, "Extraction queue"),
          queue ? h("p", {}, queue.enabled ? "LLM extraction is on." : "No LLM configured: extraction uses the caller's input and offline rules.")
            : h("p", { class: "muted" }, `The queue is the whole store's: ${OWNERS}.`),
          h("table", {}, h("tbody", {}, Object.entries(queue?.counts ?? {}).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", { class: "num" }, String(v)))))),
        ),
      ),
      h("h2", {}, "Memories ", buckets, times),
      h("div", { class: "charts" },
        stackedBars(activity.periods, activity.series.workspace, "by workspace", "(global)"),
        stackedBars(activity.periods, activity.series.category, "by category"),
        stackedBars(activity.periods, activity.series.agent, "by partition", "(shared)"),
        stackedBars(activity.periods, activity.series.tag, "by tag"),
      ),
    );
  } catch (err) {
    clear(root, h("h1", {}, "Dashboard"), errorBox((err as ApiError).message));
  }
}
