// Search (POST /search) and the paged list (GET /memories): compact rows with score and age that expand.

import { ApiError, Choices, Memory, api, choices, query, tagKeys } from "./api";
import { ageOf, clear, elsewhereOffer, errorBox, h, preview, select, short } from "./dom";

interface Hit {
  score: number;
  memory: Memory;
  explain?: Record<string, number>;
}

const state: { form: Record<string, string>; hits: Hit[] | null; took: number | null; elsewhere: Record<string, number> } =
  { form: {}, hits: null, took: null, elsewhere: {} };

function parseTags(text: string): string[] {
  return text.split(",").map((t) => t.trim()).filter(Boolean);
}

function tagsBody(list: string[]): Record<string, string> | string[] | null {
  if (!list.length) return null;
  if (list.every((t) => t.includes("="))) return Object.fromEntries(list.map((t) => t.split("=", 2) as [string, string]));
  return list.filter((t) => !t.includes("="));
}

function day(value: string, end: boolean): string | null {
  if (!value) return null;
  return end ? `${value}T23:59:59Z` : `${value}T00:00:00Z`;
}

export function memoryDetails(m: Memory): HTMLElement {
  const tags = Object.entries(m.tags ?? {}).map(([k, v]) => `${k}=${v}`).join(", ");
  return h("dl", { class: "fields" },
    h("dt", {}, "id"), h("dd", {}, h("a", { href: `#/memory/${m.id}` }, m.id)),
    h("dt", {}, "workspace"), h("dd", {}, m.workspace ?? "(global)"),
    h("dt", {}, "partition"), h("dd", {}, m.agent_id ?? "(shared)"),
    h("dt", {}, "category"), h("dd", {}, m.category ?? ""),
    h("dt", {}, "tags"), h("dd", {}, tags),
    h("dt", {}, "artifacts"), h("dd", {}, (m.artifacts ?? []).join(", ")),
    h("dt", {}, "evidence"), h("dd", {}, (m.evidence ?? []).join(", ")),
    h("dt", {}, "importance"), h("dd", {}, String(m.importance)),
    h("dt", {}, "created"), h("dd", {}, m.created_at),
    h("dt", {}, "updated"), h("dd", {}, m.updated_at),
    h("dt", {}, "valid"), h("dd", {}, `${m.valid_at}${m.invalid_at ? ` → ${m.invalid_at}` : ""}`),
    h("dt", {}, "version"), h("dd", {}, String(m.version)),
    h("dt", {}, "content hash"), h("dd", { class: "id" }, m.content_hash),
  );
}

function explainTable(explain: Record<string, number>): HTMLElement {
  return h("table", { class: "explain" },
    h("thead", {}, h("tr", {}, h("th", {}, "stage"), h("th", {}, "score"))),
    h("tbody", {}, Object.entries(explain).map(([stage, v]) => h("tr", {}, h("td", {}, stage), h("td", { class: "num" }, v.toFixed(4))))),
  );
}

function row(m: Memory, score: number | null, explain?: Record<string, number>): HTMLElement {
  const more = h("div", { class: "more", hidden: true });
  const li = h("li", { class: "hit", "data-id": m.id },
    h("div", { class: "line", role: "button", tabindex: "0" },
      score === null ? null : h("span", { class: "score", title: "score" }, score.toFixed(2)),
      h("span", { class: "age", title: `true since ${m.valid_at}; stored ${m.created_at}` }, ageOf(m)),
      m.category ? h("span", { class: "badge" }, m.category) : null,
      m.invalid_at ? h("span", { class: "badge retired" }, "retired") : null,
      h("span", { class: "text" }, preview(m.content)),
      h("a", { class: "id", href: `#/memory/${m.id}`, title: "open" }, short(m.id)),
    ),
    more,
  );
  const toggle = (e: Event) => {
    if ((e.target as HTMLElement).closest("a")) return;
    if (more.hidden && !more.childElementCount) {
      more.append(h("p", { class: "content" }, m.content), memoryDetails(m));
      if (explain) more.append(h("h4", {}, "Why it ranked here"), explainTable(explain));
      more.append(h("p", {}, h("a", { href: `#/memory/${m.id}`, class: "button" }, "Open"), " ", h("a", { href: `#/graph/${m.id}`, class: "button" }, "Graph")));
    }
    more.hidden = !more.hidden;
    li.classList.toggle("open", !more.hidden);
  };
  li.querySelector(".line")!.addEventListener("click", toggle);
  li.querySelector(".line")!.addEventListener("keydown", (e) => { if ((e as KeyboardEvent).key === "Enter") toggle(e); });
  return li;
}

type Options = [string, string][];
const pairs = (xs: string[]): Options => xs.map((x) => [x, x]);
/** The workspace pickers' options; ``shown``, the workspace the page is on, stays chosen even when the store's
 * list does not hold it (a workspace with no memory yet, or one named in the URL that holds none). */
const workspaceOptions = (c: Choices, shown = ""): Options => {
  const named = shown && shown !== "*" && !c.workspaces.includes(shown) ? [shown] : [];
  return [["", "server default"], ["*", "every workspace"], ...pairs([...c.workspaces, ...named])];
};
const agentOptions = (c: Choices): Options => [["", "shared pool"], ["*", "every partition"], ...pairs(c.agents)];
const categoryOptions = (c: Choices): Options => [["", "any category"], ...pairs(c.categories)];
const recipeOptions = (c: Choices): Options => c.recipes.map((r) => [r, r === c.default_recipe ? `${r} (default)` : r]);

const NO_CHOICES: Choices = { workspaces: [], agents: [], categories: [], recipes: [], default_recipe: "", link_types: [] };

/** A datalist of the tag keys in use, filled when they arrive. */
function tagList(): HTMLDataListElement {
  const list = h("datalist", { id: "tag-keys" });
  tagKeys().then((tags) => list.replaceChildren(...tags.map((t) => h("option", { value: t }))), () => undefined);
  return list;
}

export async function searchView(root: HTMLElement): Promise<void> {
  // The form is drawn at once; its pickers are filled when the store's choices arrive.
  const pending = choices();
  let c = NO_CHOICES;
  const f = state.form;
  const ws = workspaceOptions(c), agents = agentOptions(c), cats = categoryOptions(c), recipes = recipeOptions(c);
  const form = h("form", { class: "search", autocomplete: "off" },
    h("div", { class: "bar" },
      h("input", { type: "search", name: "query", placeholder: "What do you want to recall?", value: f.query ?? "", autofocus: true, "aria-label": "query" }),
      h("button", { type: "submit" }, "Search"),
    ),
    h("div", { class: "filters" },
      h("label", {}, "workspace ", select("workspace", ws, f.workspace ?? "")),
      h("label", {}, "partition ", select("agent_id", agents, f.agent_id ?? "")),
      h("label", {}, "recipe ", select("recipe", recipes, f.recipe ?? c.default_recipe)),
      h("label", {}, "category ", select("category", cats, f.category ?? "")),
      h("label", {}, "tags ", h("input", { name: "tags", placeholder: "key=value, …", value: f.tags ?? "", list: "tag-keys", size: 14 })),
      tagList(),
      h("label", {}, "artifact ", h("input", { name: "artifact", placeholder: "path or URL", value: f.artifact ?? "", size: 14 })),
      h("label", {}, "after ", h("input", { type: "date", name: "created_after", value: f.created_after ?? "" })),
      h("label", {}, "before ", h("input", { type: "date", name: "created_before", value: f.created_before ?? "" })),
      h("label", {}, h("input", { type: "checkbox", name: "include_invalid", checked: f.include_invalid === "on" }), " retired too"),
      h("label", {}, h("input", { type: "checkbox", name: "explain", checked: f.explain === "on" }), " explain"),
    ),
  );
  const out = h("section", { id: "results" });
  clear(root, h("h1", {}, "Search"), form, out);
  c = await pending;
  const pick = (name: string, options: Options, value: string) =>
    form.querySelector(`select[name=${name}]`)!.replaceWith(select(name, options, value));
  pick("workspace", workspaceOptions(c, f.workspace ?? ""), f.workspace ?? "");
  pick("agent_id", agentOptions(c), f.agent_id ?? "");
  pick("recipe", recipeOptions(c), f.recipe ?? c.default_recipe);
  pick("category", categoryOptions(c), f.category ?? "");

  const show = () => {
    if (state.hits === null) return;
    clear(out,
      h("p", { class: "muted", id: "result-count" }, state.hits.length
        ? `${state.hits.length} result${state.hits.length === 1 ? "" : "s"} in ${state.took} ms`
        : `Nothing matched this query here (${state.took} ms).`),
      elsewhere(),
      h("ul", { class: "hits" }, state.hits.map((x) => row(x.memory, x.score, x.explain))),
    );
  };
  const elsewhere = () => elsewhereOffer(state.elsewhere, (w) => {
    form.querySelector<HTMLSelectElement>("select[name=workspace]")!.value = w;
    form.requestSubmit();
  });
  show();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries()) as Record<string, string>;
    state.form = data;
    if (!data.query?.trim()) {
      clear(out, errorBox("Type what to look for."));
      return;
    }
    const body: Record<string, unknown> = {
      query: data.query,
      workspace: data.workspace || null,
      agent_id: data.agent_id || null,
      recipe: data.recipe || null,
      category: data.category || null,
      tags: tagsBody(parseTags(data.tags ?? "")),
      artifact: data.artifact || null,
      created_after: day(data.created_after ?? "", false),
      created_before: day(data.created_before ?? "", true),
      include_invalid: data.include_invalid === "on",
      explain: data.explain === "on",
      limit: 20,
    };
    const t0 = performance.now();
    try {
      const res = await api<{ hits: Hit[]; elsewhere?: Record<string, number> }>("POST", "/search", body);
      state.hits = res.hits;
      state.elsewhere = res.elsewhere ?? {};
      state.took = Math.round(performance.now() - t0);
      show();
    } catch (err) {
      clear(out, errorBox((err as ApiError).message));
    }
  });
}

export async function listView(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const c = await choices();
  const ws = workspaceOptions(c, params.get("workspace") ?? ""), agents = agentOptions(c), cats = categoryOptions(c);
  const form = h("form", { class: "filters" },
    h("label", {}, "workspace ", select("workspace", ws, params.get("workspace") ?? "")),
    h("label", {}, "partition ", select("agent_id", agents, params.get("agent_id") ?? "")),
    h("label", {}, "category ", select("category", cats, params.get("category") ?? "")),
    h("label", {}, "tag ", h("input", { name: "tag", placeholder: "key or key=value", value: params.get("tag") ?? "", list: "tag-keys", size: 14 })),
    tagList(),
    h("label", {}, "since ", h("input", { type: "date", name: "since", value: params.get("since") ?? "" })),
    h("label", {}, "until ", h("input", { type: "date", name: "until", value: params.get("until") ?? "" })),
    h("button", { type: "submit" }, "Show"),
  );
  const out = h("section", { id: "results" });
  clear(root, h("h1", {}, "Browse"), form, out);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries()) as Record<string, string>;
    location.hash = `#/list${query(data)}`;
  });
  const cursors = (params.get("trail") ?? "").split(",").filter(Boolean);
  const cursor = cursors.length ? cursors[cursors.length - 1] : null;
  try {
    const page = await api<{ memories: Memory[]; next_cursor: string | null; elsewhere?: Record<string, number>; unknown_workspace?: string }>(
      "GET", `/memories${query({
      workspace: params.get("workspace"),
      agent_id: params.get("agent_id"),
      category: params.get("category"),
      tag: params.get("tag") ? [params.get("tag")!] : null,
      since: day(params.get("since") ?? "", false),
      until: day(params.get("until") ?? "", true),
      limit: 25,
      cursor,
    })}`);
    const base = new URLSearchParams(params);
    const link = (trail: string[]) => {
      const p = new URLSearchParams(base);
      if (trail.length) p.set("trail", trail.join(","));
      else p.delete("trail");
      return `#/list?${p.toString()}`;
    };
    // An empty first page says so, and offers the other workspaces where the same listing shows memories.
    const empty = !page.memories.length && !cursors.length;
    const there = (w: string) => {
      const p = new URLSearchParams(base);
      p.set("workspace", w);
      p.delete("trail");
      location.hash = `#/list?${p.toString()}`;
    };
    clear(out,
      empty
        ? h("p", { class: "muted", id: "nothing-listed" }, page.unknown_workspace
          ? `No memories: workspace "${page.unknown_workspace}" does not exist (nothing is stored in it).`
          : "No memories here.")
        : h("p", { class: "muted" }, `page ${cursors.length + 1} · ${page.memories.length} memories, newest first`),
      empty ? elsewhereOffer(page.elsewhere, there, "elsewhere", ["memory", "memories"]) : null,
      h("ul", { class: "hits" }, page.memories.map((m) => row(m, null))),
      h("p", { class: "pager" },
        cursors.length ? h("a", { class: "button", href: link(cursors.slice(0, -1)), id: "prev" }, "← Newer") : null,
        page.next_cursor ? h("a", { class: "button", href: link([...cursors, page.next_cursor]), id: "next" }, "Older →") : null,
      ),
    );
  } catch (err) {
    clear(out, errorBox((err as ApiError).message));
  }
}
