// The console's only way to the server: fetch on the public API with the key kept in
// sessionStorage (gone when the tab closes). Types come from the SDK's generated schema.
import type { components } from '../../../sdk/src/schema.js';

export type Schemas = components['schemas'];
export type Connector = Schemas['Connector'];
export type Run = Schemas['Run'];
export type Secret = Schemas['Secret'];
export type FileMeta = Schemas['File'];
export type CaptureSession = Schemas['CaptureSession'];
export type Task = Schemas['Task'];
export interface Problem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

const KEY = 'connector-console.api-key';
export const session = {
  key: () => sessionStorage.getItem(KEY),
  set: (k: string) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

/** An answer other than 2xx: `detail` is a string, or the 422 list of problems. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | Problem[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '));
  }
  get problems(): Problem[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (f: () => void) => (onUnauthorized = f);

export async function api<T = any>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/v1beta${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Is it running?');
  }
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    if (res.status === 401 && key === session.key()) onUnauthorized();
    throw new ApiError(res.status, json?.detail ?? (text || res.statusText));
  }
  return json as T;
}

export const qs = (params: Record<string, string | number | undefined | null>) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
};

/** Maps 422 problems to form fields: the part of `loc` after `prefix` (e.g. ['body','arguments']). */
export function fieldErrors(problems: Problem[], prefix: string[]): { fields: Record<string, string>; rest: Problem[] } {
  const fields: Record<string, string> = {};
  const rest: Problem[] = [];
  for (const p of problems) {
    const head = p.loc.slice(0, prefix.length).map(String);
    const name = p.loc[prefix.length];
    if (head.join('\u0000') === prefix.join('\u0000') && name !== undefined) {
      const k = String(name);
      fields[k] = fields[k] ? `${fields[k]}; ${p.msg}` : p.msg;
    } else rest.push(p);
  }
  return { fields, rest };
}
