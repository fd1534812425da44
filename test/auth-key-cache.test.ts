// Verified API keys are cached in process (no database lookup per request), and revocation still
// takes effect at once in every process: another instance on the same database revokes, and the
// very next request here is refused (SQLite: data_version; PostgreSQL: LISTEN/NOTIFY).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { createServices, type Services } from '../src/services.js';
import Database from 'better-sqlite3';
import path from 'node:path';
import { sqliteChangeSignal } from '../src/adapters/db/change-signal.js';

for (const backend of await backends()) {
  describe(`API key cache and revocation (${backend})`, () => {
    let h: Harness;
    let other: Services;
    beforeAll(async () => {
      h = await startHarness(backend);
      // A second instance on the same database: what another server process or the CLI is.
      other = await createServices(h.config, { pgSchema: h.pgSchema });
    });
    afterAll(async () => {
      await other?.close();
      await h?.close();
    });

    const status = async (key: string) => (await h.api('GET', '/v1beta/secrets', undefined, key)).status;

    it('answers a known key from memory: a row deleted behind its back by this process does not matter', async () => {
      const u = await h.newUser('cached');
      expect(await status(u.key)).toBe(200);
      // Through this instance's own connection: no other process changed anything.
      await h.services.db.deleteFrom('api_keys').where('user_id', '=', u.userId).execute();
      expect(await status(u.key)).toBe(200);
    });

    it('refuses a key revoked by another process on the next request', async () => {
      const u = await h.newUser('revoked-elsewhere');
      expect(await status(u.key)).toBe(200);
      expect(await status(u.key)).toBe(200);
      const [info] = await other.users.listKeys(u.userId);
      const revokedAt = Date.now();
      expect(await other.users.revokeKey(info.id)).toBe(true);
      if (backend === 'sqlite') {
        expect(await status(u.key)).toBe(401);
        return;
      }
      // PostgreSQL: the NOTIFY reaches this process after the revoking transaction commits.
      let s = await status(u.key);
      while (s !== 401 && Date.now() - revokedAt < 2000) {
        await new Promise((r) => setTimeout(r, 5));
        s = await status(u.key);
      }
      expect(s).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(1000);
    });

    it.runIf(backend === 'sqlite')('reads data_version once per event-loop turn; the next turn sees a commit made elsewhere', async () => {
      const signal = sqliteChangeSignal(h.services.db);
      const elsewhere = new Database(path.join(h.config.dataDir, 'connector.db'));
      try {
        const nextTurn = () => new Promise((r) => setImmediate(r));
        const u = await h.newUser('per-turn');
        await nextTurn();
        expect(signal.changedElsewhere()).toBe(false);
        // Committed by another connection within this turn (better-sqlite3 is synchronous).
        elsewhere.prepare('UPDATE api_keys SET revoked_at = ? WHERE user_id = ?').run(new Date().toISOString(), u.userId);
        expect(signal.changedElsewhere()).toBe(false); // this turn already read it
        await nextTurn();
        expect(signal.changedElsewhere()).toBe(true);
        expect(signal.changedElsewhere()).toBe(false);
        await nextTurn();
        expect(signal.changedElsewhere()).toBe(false);
      } finally {
        elsewhere.close();
      }
    });

    it('refuses a key revoked in this process at once, and other keys keep working', async () => {
      const a = await h.newUser('a');
      const b = await h.newUser('b');
      expect(await status(a.key)).toBe(200);
      expect(await status(b.key)).toBe(200);
      const [info] = await h.services.users.listKeys(a.userId);
      expect(await h.services.users.revokeKey(info.id)).toBe(true);
      expect(await status(a.key)).toBe(401);
      expect(await status(b.key)).toBe(200);
    });
  });
}
