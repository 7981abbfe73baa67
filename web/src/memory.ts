// One memory: content, every field, versions with a diff, links in and out, meta-relations, facts;
// edit, link, unlink and delete, each confirmed first, each showing the API's own error message.

import { diffWordsWithSpace } from "diff";
import { ApiError, Memory, api, choices, query } from "./api";
import { age, clear, confirmAction, errorBox, h, preview, select, short } from "./dom";
import { memoryDetails } from "./search";

interface Relationship {
  id: string;
  from: string;
  to: string;
  type: string;
  created_at: string;
}

interface MetaRelation {
  type: string;
  target_label: string;
  target_value: string;
  score: number | null;
  preview: string | null;
}

interface Fact {
  id: string;
  fact: string;
  predicate: string;
  subject: { id: string; name: string };
  object: { id: string; name: string };
  valid_at: string | null;
  invalid_at: string | null;
  extractor: string;
  confidence: number;
}

interface Entity {
  id: string;
  name: string;
  type: string | null;
  summary: string;
}

/** True when a memory's validity has ended (a future invalid_at is not yet retired). */
export function retired(invalidAt: string | null | undefined): boolean {
  return !!invalidAt && Date.parse(invalidAt) <= Date.now();
}

// The fields a version can change besides its text, as the history shows them.
const VERSION_FIELDS = ["valid_at", "invalid_at", "expires_at", "category", "tags", "importance", "artifacts", "evidence", "metadata", "workspace", "agent_id"] as const;

function shown(value: unknown): string {
  if (value === null || value === undefined || value === "") return "none";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Every field but the text that changed from one version to the next: "invalid_at: none → 2026-…". */
function fieldChanges(before: Memory, after: Memory): HTMLElement | null {
  const b = before as unknown as Record<string, unknown>, a = after as unknown as Record<string, unknown>;
  const rows = VERSION_FIELDS.filter((f) => shown(b[f]) !== shown(a[f])).map((f) =>
    h("li", { "data-field": f }, h("code", {}, f), ": ", h("del", {}, shown(b[f])), " → ", h("ins", {}, shown(a[f])),
      f === "invalid_at" && a[f] ? (retired(a[f] as string) ? " (retired)" : " (retires then)") : ""));
  if (!rows.length && before.content === after.content) return h("p", { class: "muted" }, "no field changed");
  return rows.length ? h("ul", { class: "changes" }, rows) : null;
}

function diffView(before: string, after: string): HTMLElement {
  return h("p", { class: "diff" }, diffWordsWithSpace(before, after).map((part) =>
    part.added ? h("ins", {}, part.value) : part.removed ? h("del", {}, part.value) : part.value,
  ));
}

function splitLines(text: string): string[] {
  return text.split("\n").map((s) => s.trim()).filter(Boolean);
}

function editForm(m: Memory, status: HTMLElement, reload: () => void): HTMLFormElement {
  const form = h("form", { class: "edit", id: "edit-form" },
    h("label", {}, "content", h("textarea", { name: "content", rows: 5 }, m.content)),
    h("div", { class: "row" },
      h("label", {}, "category", h("input", { name: "category", value: m.category ?? "" })),
      h("label", {}, "importance", h("input", { name: "importance", value: String(m.importance), size: 5 })),
      h("label", {}, "valid from", h("input", { name: "valid_at", value: m.valid_at })),
      h("label", {}, "valid until", h("input", { name: "invalid_at", value: m.invalid_at ?? "", placeholder: "still valid" })),
    ),
    h("label", {}, "tags (JSON object)", h("input", { name: "tags", value: JSON.stringify(m.tags ?? {}) })),
    h("div", { class: "row" },
      h("label", {}, "artifacts (one a line)", h("textarea", { name: "artifacts", rows: 2 }, (m.artifacts ?? []).join("\n"))),
      h("label", {}, "evidence (one a line)", h("textarea", { name: "evidence", rows: 2 }, (m.evidence ?? []).join("\n"))),
    ),
    h("p", {}, h("button", { type: "submit", id: "save" }, "Save"), " ", h("button", { type: "button", class: "plain", id: "cancel-edit" }, "Cancel")),
  );
  form.querySelector("#cancel-edit")!.addEventListener("click", () => form.remove());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(form).entries()) as Record<string, string>;
    const changes: Record<string, unknown> = {};
    if (d.content !== m.content) changes.content = d.content;
    if ((d.category || null) !== m.category) changes.category = d.category || null;
    if (d.importance !== String(m.importance)) changes.importance = d.importance.trim() === "" ? null : Number(d.importance);
    if (d.valid_at !== m.valid_at) changes.valid_at = d.valid_at;
    if ((d.invalid_at || null) !== m.invalid_at) changes.invalid_at = d.invalid_at || null;
    if (d.tags !== JSON.stringify(m.tags ?? {})) {
      try {
        changes.tags = JSON.parse(d.tags || "{}");
      } catch {
        status.replaceChildren(errorBox("tags: not valid JSON (write an object such as {\"area\": \"storage\"})"));
        return;
      }
    }
    const artifacts = splitLines(d.artifacts);
    if (artifacts.join("\n") !== (m.artifacts ?? []).join("\n")) changes.artifacts = artifacts;
    const evidence = splitLines(d.evidence);
    if (evidence.join("\n") !== (m.evidence ?? []).join("\n")) changes.evidence = evidence;
    if (!Object.keys(changes).length) {
      status.replaceChildren(errorBox("Nothing changed."));
      return;
    }
    if (!(await confirmAction(`Save changes to ${Object.keys(changes).join(", ")}? The current version is kept in the history.`))) return;
    try {
      await api("PATCH", `/memories/${m.id}`, changes);
      reload();
    } catch (err) {
      status.replaceChildren(errorBox((err as ApiError).message));
    }
  });
  return form;
}

export async function memoryView(root: HTMLElement, id: string): Promise<void> {
  const status = h("div", { class: "status" });
  let m: Memory;
  try {
    m = await api<Memory>("GET", `/memories/${encodeURIComponent(id)}`);
  } catch (err) {
    clear(root, h("h1", {}, "Memory"), errorBox((err as ApiError).message));
    return;
  }
  const reload = () => memoryView(root, m.id);
  const [history, rels, meta, knowledge, c] = await Promise.all([
    api<{ versions: Memory[] }>("GET", `/memories/${m.id}/history`),
    api<{ relationships: Relationship[] }>("GET", `/memories/${m.id}/relationships`),
    api<Record<string, MetaRelation[]>>("GET", `/relations${query({ id: [m.id] })}`),
    api<{ entities: Entity[]; facts: Fact[] }>("GET", `/ui/api/memories/${m.id}/knowledge`),
    choices(),
  ]);

  // Briefs of the memories at the other end of each link, for a readable list.
  const others = [...new Set(rels.relationships.map((r) => (r.from === m.id ? r.to : r.from)))];
  const briefs = new Map<string, Memory>();
  await Promise.all(others.map(async (o) => {
    try {
      briefs.set(o, await api<Memory>("GET", `/memories/${o}`));
    } catch {
      /* outside this server's view */
    }
  }));

  const editBtn = h("button", { id: "edit" }, "Edit");
  const deleteBtn = h("button", { id: "delete", class: "danger" }, "Delete");
  const head = h("div", { class: retired(m.invalid_at) ? "head retired" : "head" },
    h("h1", {}, `Memory ${short(m.id)}`, " ", retired(m.invalid_at)
      ? h("span", { class: "badge retired", id: "retired", title: `no longer valid since ${m.invalid_at}` }, `retired ${m.invalid_at!.slice(0, 10)}`)
      : null),
    h("div", { class: "actions" }, editBtn, " ", h("a", { class: "button", href: `#/graph/${m.id}` }, "Graph"), " ", deleteBtn),
  );
  const editSlot = h("div");
  editBtn.addEventListener("click", () => {
    if (!editSlot.childElementCount) editSlot.append(editForm(m, status, reload));
  });
  deleteBtn.addEventListener("click", async () => {
    if (!(await confirmAction(`Delete memory ${short(m.id)} and its history? This cannot be undone.\n\n“${preview(m.content, 80)}”`))) return;
    try {
      await api("DELETE", `/memories/${m.id}`);
      sessionStorage.setItem("knotwork.flash", `Deleted memory ${short(m.id)}.`);
      location.hash = "#/list";
    } catch (err) {
      status.replaceChildren(errorBox((err as ApiError).message));
    }
  });

  // History: newest first, each with its diff against the version before.
  const versions = history.versions;
  const historyList = h("ol", { class: "history", reversed: true },
    [...versions].reverse().map((v) => {
      const i = versions.indexOf(v);
      const prev = i > 0 ? versions[i - 1] : null;
      return h("li", {},
        h("div", { class: "muted" }, `version ${v.version} · ${v.updated_at} (${age(v.updated_at)})`),
        prev && prev.content !== v.content ? diffView(prev.content, v.content) : prev ? null : h("p", { class: "diff" }, v.content),
        prev ? fieldChanges(prev, v) : null,
      );
    }),
  );

  // Links in and out, with unlink.
  const linkRows = rels.relationships.map((r) => {
    const out = r.from === m.id;
    const other = out ? r.to : r.from;
    const brief = briefs.get(other);
    const unlink = h("button", { class: "plain small", "data-unlink": r.id }, "unlink");
    unlink.addEventListener("click", async () => {
      if (!(await confirmAction(`Remove the link ${out ? "→" : "←"} ${r.type} ${short(other)}?`))) return;
      try {
        await api("DELETE", `/links/${r.id}`);
        reload();
      } catch (err) {
        status.replaceChildren(errorBox((err as ApiError).message));
      }
    });
    return h("li", {},
      h("span", { class: "badge" }, out ? `→ ${r.type}` : `← ${r.type}`), " ",
      h("a", { href: `#/memory/${other}` }, short(other)), " ",
      h("span", { class: "muted" }, brief ? preview(brief.content, 90) : ""), " ", unlink,
    );
  });
  const linkForm = h("form", { class: "row", id: "link-form" },
    select("type", c.link_types.map((t) => [t, t] as [string, string]), "relates_to"),
    h("input", { name: "to_id", placeholder: "id of the other memory (8+ chars)", size: 30, required: true }),
    h("button", { type: "submit" }, "Link"),
  );
  linkForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(linkForm).entries()) as Record<string, string>;
    if (!(await confirmAction(`Link ${short(m.id)} —${d.type}→ ${d.to_id}?`))) return;
    try {
      await api("POST", "/links", { from_id: m.id, to_id: d.to_id.trim(), type: d.type });
      reload();
    } catch (err) {
      status.replaceChildren(errorBox((err as ApiError).message));
    }
  });

  // Meta-relations grouped by what they point at.
  const groups = new Map<string, MetaRelation[]>();
  for (const r of meta[m.id] ?? []) {
    const key = r.type === "similar" ? "similar" : r.type === "about" ? "entities" : r.target_label === "artifact" ? "artifacts" : r.type === "tagged" ? "tags" : r.target_label;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const metaList = h("dl", { class: "fields meta" },
    [...groups.entries()].map(([key, list]) => [
      h("dt", {}, key),
      h("dd", {}, list.map((r) =>
        r.type === "similar"
          ? h("div", {}, h("a", { href: `#/memory/${r.target_value}` }, short(r.target_value)), ` ${(r.score ?? 0).toFixed(2)} `, h("span", { class: "muted" }, preview(r.preview ?? "", 80)))
          : h("span", { class: "chip", title: r.preview ?? "" }, r.type === "tagged" ? `${r.target_label}=${r.target_value}` : r.target_value),
      )),
    ]),
  );

  const facts = knowledge.facts.map((f) =>
    h("li", {}, f.fact, " ", h("span", { class: "muted" }, f.invalid_at ? `(until ${f.invalid_at})` : f.valid_at ? `(since ${f.valid_at.slice(0, 10)})` : ""),
      " ", h("span", { class: "badge stated", title: "who stated it, and how sure it was" },
        `${f.extractor} ${Math.floor(f.confidence * 100) / 100}`)),
  );

  clear(root,
    head,
    status,
    editSlot,
    h("p", { class: "content big" }, m.content),
    memoryDetails(m),
    Object.keys(m.metadata ?? {}).length ? h("pre", { class: "metadata" }, JSON.stringify(m.metadata, null, 2)) : null,
    h("div", { class: "cols" },
      h("section", {},
        h("h2", {}, `Links (${rels.relationships.length})`),
        linkRows.length ? h("ul", { class: "links" }, linkRows) : h("p", { class: "muted" }, "No links."),
        linkForm,
        h("h2", {}, "Meta-relations"),
        metaList,
        h("h2", {}, `Facts it gave (${knowledge.facts.length})`),
        facts.length ? h("ul", { class: "facts" }, facts) : h("p", { class: "muted" }, "None."),
        knowledge.entities.length ? h("p", {}, "Entities: ", knowledge.entities.map((e) => h("span", { class: "chip", title: e.summary }, e.name))) : null,
      ),
      h("section", {}, h("h2", {}, `History (${versions.length} version${versions.length === 1 ? "" : "s"})`), historyList),
    ),
  );
}
