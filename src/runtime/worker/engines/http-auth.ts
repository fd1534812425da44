// HTTP authentication challenges a run answers with a bound login (the definition's `basic_auth`
// slot): Basic (RFC 7617) and Digest (RFC 7616). A browser answers them in its sign-in dialog, out
// of the recording's sight; the run answers the same challenge the same way.
//
// Digest is written here on node:crypto rather than taken from npm: the packages for it split the
// password at its first ':' and share one nonce count between all servers (digest-header), or refuse
// any parameter they don't know — `charset`, `userhash` — and know neither the -sess algorithms nor
// qop=auth-int (http-auth-utils).
import crypto from 'node:crypto';

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

export interface Login {
  username: string;
  password: string;
}

// RFC 7616 §3.3's algorithms, by their names there; a `-sess` variant hashes the nonces into A1.
const HASHES: Record<string, string> = { md5: 'md5', 'sha-256': 'sha256', 'sha-512-256': 'sha512-256' };

/**
 * The challenges of WWW-Authenticate values (one header may hold several, and a response may send
 * several headers): `Digest realm="a, b", nonce=x, Basic realm=y` is two. Parameter names are
 * lower-cased, quoted values unescaped.
 */
export function parseChallenges(value: string | string[] | undefined): Challenge[] {
  const out: Challenge[] = [];
  for (const text of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
    let i = 0;
    let cur: Challenge | null = null;
    const skip = (re: RegExp) => {
      while (i < text.length && re.test(text[i]!)) i++;
    };
    while (i < text.length) {
      skip(/[\s,]/);
      const start = i;
      skip(/[^\s,=]/);
      const token = text.slice(start, i);
      if (!token) break;
      skip(/[ \t]/);
      if (text[i] !== '=') {
        // A token not followed by '=' starts a challenge (token68 values, unused here, are skipped).
        cur = { scheme: token.toLowerCase(), params: {} };
        out.push(cur);
        continue;
      }
      // `token=`: a parameter, unless it is a token68 ending in '=' (then nothing follows but ',').
      i++;
      skip(/[ \t]/);
      let v = '';
      if (text[i] === '"') {
        for (i++; i < text.length && text[i] !== '"'; i++) v += text[i] === '\\' && i + 1 < text.length ? text[++i] : text[i];
        i++;
      } else {
        const vs = i;
        skip(/[^\s,]/);
        v = text.slice(vs, i);
      }
      if (cur) cur.params[token.toLowerCase()] = v;
    }
  }
  return out;
}

/** The challenge a run answers: a Digest it can compute (the strongest first), else Basic. */
export function pickChallenge(challenges: Challenge[]): Challenge | null {
  const digests = challenges.filter(
    (c) => c.scheme === 'digest' && digestAlgorithm(c) && qopOf(c) !== null && c.params.nonce !== undefined,
  );
  const rank = (c: Challenge) => ['sha-512-256', 'sha-256', 'md5'].indexOf(digestAlgorithm(c)!.hash);
  digests.sort((a, b) => rank(a) - rank(b));
  return digests[0] ?? challenges.find((c) => c.scheme === 'basic') ?? null;
}

function digestAlgorithm(c: Challenge): { hash: string; sess: boolean } | null {
  const name = (c.params.algorithm ?? 'MD5').toLowerCase();
  const sess = name.endsWith('-sess');
  const hash = sess ? name.slice(0, -5) : name;
  return HASHES[hash] ? { hash, sess } : null;
}

/** The qop a run uses: `auth` when offered, else `auth-int`, '' when the server names none (RFC 2069); null when it offers only others. */
function qopOf(c: Challenge): string | null {
  if (c.params.qop === undefined) return '';
  const offered = c.params.qop.split(',').map((q) => q.trim().toLowerCase());
  return offered.includes('auth') ? 'auth' : offered.includes('auth-int') ? 'auth-int' : null;
}

const quoted = (v: string) => `"${v.replace(/[\\"]/g, (m) => `\\${m}`)}"`;

/**
 * Answers one origin's challenge for a run: `authorization(method, url, body)` is the header each
 * request to that origin carries. Digest counts its requests per nonce (nc) with a fresh client
 * nonce each time; a new challenge (a stale nonce) is taken by `renew`.
 */
export class ChallengeAnswer {
  private nc = 0;
  constructor(
    readonly origin: string,
    private challenge: Challenge,
    private readonly login: Login,
    /** A fresh client nonce per request (fixed only by tests, for RFC 7616's worked examples). */
    private readonly newCnonce: () => string = () => crypto.randomBytes(16).toString('hex'),
  ) {}

  get scheme(): string {
    return this.challenge.scheme;
  }

  /** Takes a server's new nonce (`stale=true`: the credentials were right, the nonce expired); false if it is no such answer. */
  renew(challenges: Challenge[]): boolean {
    if (this.challenge.scheme !== 'digest') return false;
    const next = pickChallenge(challenges);
    if (next?.scheme !== 'digest' || next.params.stale?.toLowerCase() !== 'true') return false;
    this.challenge = next;
    this.nc = 0;
    return true;
  }

  authorization(method: string, url: URL, body?: Buffer): string {
    const { username, password } = this.login;
    if (this.challenge.scheme === 'basic') return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
    const p = this.challenge.params;
    const alg = digestAlgorithm(this.challenge)!;
    const H = (s: string | Buffer) => crypto.createHash(HASHES[alg.hash]!).update(s).digest('hex');
    const qop = qopOf(this.challenge)!;
    const uri = url.pathname + url.search;
    const nc = (++this.nc).toString(16).padStart(8, '0');
    const cnonce = this.newCnonce();
    // (`userhash=true`: the server knows the user by H(username:realm), and so is it sent.)
    const userhash = p.userhash?.toLowerCase() === 'true';
    let a1 = H(`${username}:${p.realm ?? ''}:${password}`);
    if (alg.sess) a1 = H(`${a1}:${p.nonce}:${cnonce}`);
    const a2 = H(qop === 'auth-int' ? `${method}:${uri}:${H(body ?? Buffer.alloc(0))}` : `${method}:${uri}`);
    const response = H(qop ? `${a1}:${p.nonce}:${nc}:${cnonce}:${qop}:${a2}` : `${a1}:${p.nonce}:${a2}`);
    const user = userhash
      ? `username=${quoted(H(`${username}:${p.realm ?? ''}`))}`
      : /^[\x20-\x7e]*$/.test(username)
        ? `username=${quoted(username)}`
        : `username*=UTF-8''${encodeURIComponent(username)}`;
    return [
      `Digest ${user}`,
      `realm=${quoted(p.realm ?? '')}`,
      `nonce=${quoted(p.nonce!)}`,
      `uri=${quoted(uri)}`,
      ...(p.algorithm !== undefined ? [`algorithm=${p.algorithm}`] : []),
      `response=${quoted(response)}`,
      ...(p.opaque !== undefined ? [`opaque=${quoted(p.opaque)}`] : []),
      ...(qop ? [`qop=${qop}`, `nc=${nc}`, `cnonce=${quoted(cnonce)}`] : []),
      ...(userhash ? ['userhash=true'] : []),
    ].join(', ');
  }
}
