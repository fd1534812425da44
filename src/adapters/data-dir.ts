// DATA_DIR holds the database, blobs, capture spools, the vault and the master key: it is made
// owner-only (0700) so nothing running under another uid — sandbox workers run as `nobody` when
// the server is root — can list or read it, whatever the modes of the files inside.
import fs from 'node:fs';

/** What this service keeps in DATA_DIR (SQLite side files and master key temp files included). */
const OURS = /^(connector\.db|vault\.db)(-wal|-shm|-journal)?$|^master\.key(\..*)?$|^blobs$|^capture$/;

export function ensurePrivateDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) === 0 || typeof process.getuid !== 'function' || st.uid !== process.getuid()) return;
  // Tighten a directory we own that holds only our files (an operator's pre-created one
  // included); never chmod a shared directory someone pointed DATA_DIR at, like $HOME.
  if (fs.readdirSync(dir).every((n) => OURS.test(n))) fs.chmodSync(dir, st.mode & 0o700);
}
