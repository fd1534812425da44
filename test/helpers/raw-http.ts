// Raw TCP clients for attacks a well-behaved HTTP client cannot make: unfinished headers, bodies
// shorter than their Content-Length, malformed framing.
import net from 'node:net';

export interface RawResult {
  /** Everything the server sent. */
  text: string;
  /** The server closed the connection (within the wait). */
  closed: boolean;
  /** ms from connect until close (or until the wait ended). */
  ms: number;
  status: number | null;
  /** The JSON body, when the response carried one. */
  json: any;
}

export function parseRaw(text: string): { status: number | null; json: any } {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
  const body = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
  let json: any;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: status ? Number(status) : null, json };
}

/** An open connection: write what you like, then `result(waitMs)` collects until close or timeout. */
export async function rawConnect(url: string) {
  const u = new URL(url);
  const sock = net.connect(Number(u.port), u.hostname);
  await new Promise<void>((r, j) => {
    sock.once('connect', r);
    sock.once('error', j);
  });
  const t0 = Date.now();
  let text = '';
  let closed = false;
  let closedAt = 0;
  const waiters: (() => void)[] = [];
  sock.on('data', (d) => (text += d.toString('latin1')));
  sock.on('error', () => {});
  sock.on('close', () => {
    closed = true;
    closedAt = Date.now();
    waiters.splice(0).forEach((w) => w());
  });
  return {
    sock,
    write: (s: string | Buffer) => new Promise<void>((r) => (sock.destroyed ? r() : sock.write(s, () => r()))),
    get text() {
      return text;
    },
    /** Waits until the server closes the connection or `waitMs` pass. */
    async result(waitMs: number): Promise<RawResult> {
      if (!closed) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, waitMs);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      const res = { text, closed, ms: (closed ? closedAt : Date.now()) - t0, ...parseRaw(text) };
      sock.destroy();
      return res;
    },
  };
}

/** Sends `data` and keeps the connection open; resolves when the server closes it or after waitMs. */
export async function rawExchange(url: string, data: string | Buffer, waitMs: number): Promise<RawResult> {
  const c = await rawConnect(url);
  await c.write(data);
  return c.result(waitMs);
}

/** Request head for a raw request. */
export function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\n${Object.entries({ Host: 'x', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}
