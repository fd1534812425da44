// DATA_DIR holds the database, blobs, capture spools, the vault and the master key: it is made
// owner-only (0700) so nothing running under another uid — sandbox workers run as `nobody` when
// the server is root — can list or read it, whatever the modes of the files inside.
import fs from 'node:fs';

export function ensurePrivateDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  // Tighten a directory we own (an operator's pre-created one included); leave others' alone.
  if (typeof process.getuid === 'function' && st.uid === process.getuid() && (st.mode & 0o077) !== 0) fs.chmodSync(dir, st.mode & 0o700);
}
