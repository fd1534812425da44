// The account sandbox workers run as. When the server runs as root, workers get an unprivileged
// uid/gid (SANDBOX_UID / SANDBOX_GID, default nobody/nogroup): the kernel then stops them from
// signalling the server (kill(2) needs the same uid) and from reading DATA_DIR (0700, root's).
// Not root: workers keep the server's uid (it cannot switch), and the other layers remain.
import fs from 'node:fs';

export interface SandboxUser {
  uid: number;
  gid: number;
}

const NOBODY = 65534;

export function resolveSandboxUser(cfg: { sandboxUid: string; sandboxGid: string }): SandboxUser | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const uid = lookup('/etc/passwd', cfg.sandboxUid, 'nobody', 'SANDBOX_UID');
  const gid = lookup('/etc/group', cfg.sandboxGid, 'nogroup', 'SANDBOX_GID');
  if (uid === 0 || gid === 0) throw new Error('SANDBOX_UID/SANDBOX_GID must not be root: sandbox workers would hold root rights');
  return { uid, gid };
}

/** A number as is; a name from the colon-separated database (the default name may be missing: 65534). */
function lookup(db: string, value: string, defaultName: string, env: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  let text = '';
  try {
    text = fs.readFileSync(db, 'utf8');
  } catch {
    /* no database: only the default may fall back */
  }
  for (const line of text.split('\n')) {
    const [name, , id] = line.split(':');
    if (name === value && /^\d+$/.test(id ?? '')) return Number(id);
  }
  if (value === defaultName) return NOBODY;
  throw new Error(`${env}=${value}: no such ${db === '/etc/passwd' ? 'user' : 'group'}`);
}
