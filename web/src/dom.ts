// A few helpers to build the page from plain DOM nodes.

type Child = Node | string | number | null | undefined | false;
type Kid = Child | Kid[];
type Attrs = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: Kid[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value as EventListener);
    } else if (key === "class") {
      el.className = String(value);
    } else if (key === "value" || key === "checked" || key === "selected") {
      (el as unknown as Record<string, unknown>)[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const kid of (kids as unknown[]).flat(4) as Child[]) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
  return el;
}

export function clear(el: Element, ...kids: Kid[]): void {
  el.replaceChildren();
  for (const kid of (kids as unknown[]).flat(4) as Child[]) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
}

export function select(name: string, options: [string, string][], value = ""): HTMLSelectElement {
  return h("select", { name }, options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

/** "3d", "5h", "12m", "now": how long ago an ISO-8601 time was. */
/** An age in the units of every surface (src/knotwork/text/ages.py): "now", "5m ago", "3d ago", "4mo ago", "2y ago". */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "";
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return "now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)}d ago`;
  if (s < 86400 * 365) return `${Math.floor(s / (86400 * 30))}mo ago`;
  return `${Math.floor(s / (86400 * 365))}y ago`;
}

/** A memory's age by the one rule (text/ages.py): since it became true (valid_at), with the time it was
 * stored beside it when that reads differently: "1y ago (stored 1mo ago)". */
export function ageOf(m: { valid_at: string; created_at: string }, now = Date.now()): string {
  const since = age(m.valid_at, now), stored = age(m.created_at, now);
  return since === stored ? since : `${since} (stored ${stored})`;
}

export function short(id: string): string {
  return id.length > 10 ? id.slice(-8) : id;
}

export function preview(text: string, n = 140): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

const dialog = () => document.getElementById("confirm") as HTMLDialogElement;

/** Ask before a change; resolves true when the user confirms. */
export function confirmAction(message: string): Promise<boolean> {
  const d = dialog();
  (document.getElementById("confirm-text") as HTMLElement).textContent = message;
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "ok"), { once: true });
    d.returnValue = "";
    d.showModal();
  });
}

export function errorBox(message: string): HTMLElement {
  return h("div", { class: "error", role: "alert" }, message);
}

/** A search (or a listing: `noun` "memory") that found nothing here but would in other workspaces this caller
 * reads: one button per workspace (most first), which `go` opens there; null when no other workspace would answer. */
export function elsewhereOffer(where: Record<string, number> | undefined, go: (workspace: string) => void, id = "elsewhere",
                               noun: [string, string] = ["match", "matches"]): HTMLElement | null {
  const ranked = Object.entries(where ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!ranked.length) return null;
  return h("p", { id, class: "elsewhere" }, "Found in other workspaces: ",
    ...ranked.map(([w, n]) => h("button", { type: "button", class: "link", "data-workspace": w, onclick: () => go(w) },
      `${n} ${n === 1 ? noun[0] : noun[1]} in ${w}`)));
}
