// Every call to the server: JSON in and out, the server's own error messages, the bearer token when one is needed.

export class ApiError extends Error {
  constructor(public status: number, public type: string, message: string, public field?: string) {
    super(message);
  }
}

const TOKEN_KEY = "knotwork.token";

function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = { Accept: "application/json" };
  if (json) out["Content-Type"] = "application/json";
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
    if (res.status === 401 && attempt === 0) {
      // A server bound beyond loopback needs its token: ask once, keep it for this tab only.
      const token = window.prompt("This knotwork server needs its API token (KNOTWORK_API_TOKEN):");
      if (token) {
        sessionStorage.setItem(TOKEN_KEY, token.trim());
        continue;
      }
    }
    const text = await res.text();
    let data: any = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      const err = data?.error;
      throw new ApiError(res.status, err?.type ?? "http_error", err?.message ?? `${res.status} ${res.statusText}`, err?.field);
    }
    return data as T;
  }
  throw new ApiError(401, "unauthorized", "missing or wrong bearer token");
}

export function query(params: Record<string, string | number | boolean | string[] | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

export interface Memory {
  id: string;
  content: string;
  workspace: string | null;
  agent_id: string | null;
  category: string | null;
  tags: Record<string, unknown>;
  artifacts: string[];
  evidence: string[];
  importance: number;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  valid_at: string;
  invalid_at: string | null;
  content_hash: string;
  version: number;
}

export interface Choices {
  workspaces: string[];
  agents: string[];
  categories: string[];
  recipes: string[];
  default_recipe: string;
  link_types: string[];
}

let cached: Promise<Choices> | null = null;
let cachedTags: Promise<string[]> | null = null;

/** Tag keys in use (the server reads every memory for them, so they are asked for apart and late). */
export function tagKeys(): Promise<string[]> {
  if (!cachedTags) cachedTags = api<{ tags: string[] }>("GET", "/ui/api/tags").then((r) => r.tags);
  return cachedTags;
}

export function choices(refresh = false): Promise<Choices> {
  if (!cached || refresh) {
    cached = api<Choices>("GET", "/ui/api/choices");
    cachedTags = null;
  }
  return cached;
}
