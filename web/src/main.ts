// The page's router: the part after # names the view.

import { dashboardView } from "./dashboard";
import { clear, errorBox, h } from "./dom";
import { knowledgeView, memoryGraphView } from "./graph";
import { memoryView } from "./memory";
import { listView, searchView } from "./search";

async function route(): Promise<void> {
  const root = document.getElementById("view") as HTMLElement;
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, q = ""] = raw.split("?", 2);
  const params = new URLSearchParams(q);
  const [view, arg] = path.split("/", 2).concat([""]);
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", (a as HTMLElement).dataset.nav === (view || "search")));
  delete root.dataset.ready;
  const flash = sessionStorage.getItem("knotwork.flash");
  sessionStorage.removeItem("knotwork.flash");
  try {
    if (view === "memory" && arg) await memoryView(root, decodeURIComponent(arg));
    else if (view === "graph" && arg) await memoryGraphView(root, decodeURIComponent(arg), params);
    else if (view === "knowledge") await knowledgeView(root, params);
    else if (view === "dashboard") await dashboardView(root, params);
    else if (view === "list") await listView(root, params);
    else await searchView(root);
  } catch (err) {
    clear(root, errorBox(String((err as Error).message ?? err)));
  }
  if (flash) root.prepend(h("div", { class: "flash", role: "status" }, flash));
  root.dataset.ready = view || "search";
}

window.addEventListener("hashchange", () => void route());
void route();
