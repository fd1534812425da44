// Assembles the final HAR document from the spool's NDJSON lines (pure: lines in, HAR out).
import {
  RECORDING_FORMAT_VERSION,
  SECRET_PLACEHOLDER_RE,
  type Action,
  type CaptureExtension,
  type ElementInfo,
  type Har,
  type HarEntry,
  type HarPage,
  type SecretField,
  type SecretUse,
  type WebSocketLog,
} from '../../formats/recording/types.js';
import { bodiesFromSubmits } from './submit-body.js';

/** An action as spooled: `ms` is its epoch time; seq/time/t_ms are assigned here. */
export type SpooledAction = Omit<Action, 'seq' | 'time' | 't_ms'> & { ms: number };

export type SpoolLine =
  | { k: 'entry'; e: HarEntry }
  | { k: 'action'; a: SpooledAction }
  | { k: 'page'; p: HarPage }
  | { k: 'title'; id: string; title: string }
  | { k: 'secret'; s: { secret_id: string; field: SecretField; action_id: string; target: ElementInfo | null; placeholder: string } }
  | {
      k: 'ws';
      page: string;
      requestId: string;
      url: string;
      direction: 'send' | 'receive';
      opcode: number;
      time: string;
      data?: string;
      size: number;
      sha256?: string;
    };

export interface HarMeta {
  sessionId: string;
  startedAt: string;
  endedAt: string;
  browserVersion: string;
  creatorVersion: string;
  extension: Pick<CaptureExtension, 'start_url' | 'use_proxy' | 'initial_cookies' | 'viewport' | 'limits'>;
}

const num = (id: string) => Number(id.replace(/^\D+/, '')) || 0;

export function buildHar(lines: SpoolLine[], meta: HarMeta): Har {
  const pages = new Map<string, HarPage>();
  const rawActions: SpooledAction[] = [];
  const entries: HarEntry[] = [];
  const secretLines: Extract<SpoolLine, { k: 'secret' }>['s'][] = [];
  const ws = new Map<string, WebSocketLog>();
  for (const l of lines) {
    if (l.k === 'entry') entries.push(l.e);
    else if (l.k === 'action') rawActions.push(l.a);
    else if (l.k === 'page') pages.set(l.p.id, l.p);
    else if (l.k === 'title') {
      const p = pages.get(l.id);
      if (p) p.title = l.title;
    } else if (l.k === 'secret') secretLines.push(l.s);
    else if (l.k === 'ws') {
      const w = ws.get(l.requestId) ?? { url: l.url, page: l.page, opened_at: l.time, frames: [] };
      w.frames.push({
        time: l.time,
        direction: l.direction,
        opcode: l.opcode,
        size: l.size,
        ...(l.data !== undefined ? { data: l.data } : {}),
        ...(l.sha256 ? { sha256: l.sha256 } : {}),
      });
      ws.set(l.requestId, w);
    }
  }
  const start = Date.parse(meta.startedAt);
  // Stable sort: equal times keep arrival order.
  const sorted = rawActions.map((a, i) => ({ a, i })).sort((x, y) => x.a.ms - y.a.ms || x.i - y.i);
  const actions: Action[] = sorted.map(({ a }, i) => {
    const { ms, ...rest } = a;
    const out = { ...rest, seq: i + 1, time: new Date(ms).toISOString(), t_ms: Math.max(0, ms - start) } as Action;
    if (out.type === 'fill') {
      SECRET_PLACEHOLDER_RE.lastIndex = 0;
      const m = SECRET_PLACEHOLDER_RE.exec(out.value);
      out.secret = m ? { secret_id: m[1], field: m[2] as SecretField } : null;
    }
    return out;
  });
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime) || num(a._id) - num(b._id));
  bodiesFromSubmits(
    entries,
    sorted.map(({ a }) => a),
  );
  for (const e of entries) {
    const t = Date.parse(e.startedDateTime);
    let owner: string | null = null;
    for (const { a } of sorted) {
      if (a.ms > t) break;
      owner = a.id;
    }
    e._action_id = owner;
  }
  const secrets: SecretUse[] = secretLines.map((s) => ({
    ...s,
    entries: entries.filter((e) => e._secrets.some((m) => m.secret_id === s.secret_id && m.field === s.field)).map((e) => e._id),
  }));
  return {
    log: {
      version: '1.2',
      creator: { name: 'connector-service', version: meta.creatorVersion },
      browser: { name: 'Chromium', version: meta.browserVersion },
      pages: [...pages.values()],
      entries,
      _capture: {
        format_version: RECORDING_FORMAT_VERSION,
        session_id: meta.sessionId,
        started_at: meta.startedAt,
        ended_at: meta.endedAt,
        ...meta.extension,
        actions,
        secrets,
        websockets: [...ws.values()],
      },
    },
  };
}
