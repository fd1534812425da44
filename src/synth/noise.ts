// Stage 1: drop what can't be a target or a value source: static assets, fonts, media, source
// maps, analytics/telemetry/ads, CORS preflights, failed requests, exact duplicates. HTML
// documents stay (they hold CSRF tokens and ids) even when they will not be targets.
import type { Exchange } from './types.js';

const ASSET_TYPES = new Set([
  'image',
  'font',
  'media',
  'stylesheet',
  'script',
  'manifest',
  'texttrack',
  'ping',
  'cspviolationreport',
  'preflight',
  'websocket',
  'eventsource',
]);
const ASSET_EXT = /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|ogg|wav|css|js|mjs|map)(\?|$)/i;
const ASSET_MIME = /^(image|font|audio|video)\/|^text\/css|javascript|application\/wasm/;
const TRACKER_HOST =
  /(^|\.)(google-analytics|googletagmanager|doubleclick|googlesyndication|facebook\.net|segment\.(io|com)|mixpanel|hotjar|sentry\.io|newrelic|nr-data|datadoghq|amplitude|fullstory|clarity\.ms|intercom|hubspot|optimizely|adservice|scorecardresearch|bat\.bing)\./i;
const TRACKER_PATH = /\/(collect|analytics|telemetry|beacon|tracking|pixel|rum|log-event)(\/|\?|$)|\/__(webpack|vite)|\/favicon\.ico/i;
// Paths that are telemetry only when nothing comes back: an app's own events, metrics or
// tracked items (a calendar's `/api/events`, Prometheus' `/metrics`) are data.
const MAYBE_TRACKER_PATH = /\/(track|metrics|events?)(\/|\?|$)/i;
const answersNothing = (x: Exchange) => x.status === 204 || (x.text ?? '').trim().length <= 16;

export interface NoiseResult {
  kept: Exchange[];
  dropped: { id: string; url: string; reason: string }[];
}

export function dropReason(x: Exchange): string | null {
  let u: URL;
  try {
    u = new URL(x.url);
  } catch {
    return 'unparseable URL';
  }
  if (!/^https?:$/.test(u.protocol)) return `scheme ${u.protocol}`;
  if (x.method === 'OPTIONS') return 'CORS preflight';
  if (x.status === 0) return 'failed request';
  if (ASSET_TYPES.has(x.resourceType)) return `static ${x.resourceType}`;
  // (A write is no asset whatever it is named or answered with: Rails' `POST /uploads.js` answers
  // JavaScript that holds the token the form sends next.)
  const read = x.method === 'GET' || x.method === 'HEAD';
  if (read && ASSET_EXT.test(u.pathname)) return 'static asset (extension)';
  if (read && ASSET_MIME.test(x.mime)) return `static asset (${x.mime})`;
  if (TRACKER_HOST.test(u.hostname)) return 'analytics/telemetry host';
  if (TRACKER_PATH.test(u.pathname) || (MAYBE_TRACKER_PATH.test(u.pathname) && answersNothing(x))) return 'analytics/telemetry path';
  return null;
}

const fingerprint = (x: Exchange) => `${x.method} ${x.url} ${x.body?.text ?? ''} ${x.status}`;

export function filterNoise(xs: Exchange[]): NoiseResult {
  const kept: Exchange[] = [];
  const dropped: NoiseResult['dropped'] = [];
  const seen = new Set<string>();
  for (const x of xs) {
    const r = dropReason(x);
    if (r) {
      dropped.push({ id: x.id, url: x.url, reason: r });
      continue;
    }
    // A repeated GET with the same response adds nothing (non-GETs repeat on purpose).
    const fp = fingerprint(x) + (x.method === 'GET' ? ` ${x.text ?? ''}` : ` ${x.index}`);
    if (seen.has(fp)) {
      dropped.push({ id: x.id, url: x.url, reason: 'duplicate' });
      continue;
    }
    seen.add(fp);
    kept.push(x);
  }
  return { kept, dropped };
}
