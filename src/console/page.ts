// The console's one HTML page: no inline script or style (its CSP forbids both), the hashed assets.
import type { ConsoleBundle } from './bundle.js';

export function consolePage(b: ConsoleBundle): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connector Service console</title>
<link rel="stylesheet" href="/console/${b.style.name}">
<script type="module" src="/console/${b.script.name}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the console…</p></div>
<noscript>The console needs JavaScript. The API itself is at /docs.</noscript>
</body>
</html>
`;
}

/**
 * default-src 'self' and nothing inline. The live view is same-origin (frame-src 'self'); signed
 * upload/download URLs are on PUBLIC_BASE_URL, normally this origin too.
 */
export function consoleCsp(publicBaseUrl: string): string {
  let extra = '';
  try {
    extra = ` ${new URL(publicBaseUrl).origin}`;
  } catch {
    /* not a URL: 'self' only */
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self'${extra}`,
    `frame-src 'self'${extra}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}
