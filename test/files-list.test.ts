// GET /v1beta/files: filters, every sort in both orders, keyset pagination under inserts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';

type F = { id: string; name: string; size_bytes: number; source: string; created_at: string; run_id: string | null };

describe.each(await backends())('list files (%s)', (backend) => {
  let h: Harness;
  let key: string;
  let userId: string;
  const all: F[] = [];

  async function uploadAs(name: string, size: number): Promise<F> {
    const init = await h.api('POST', '/v1beta/files', { name, size_bytes: size, content_type: 'text/plain' }, key);
    const put = await fetch(init.json.upload_url, { method: 'PUT', headers: init.json.upload_headers, body: 'x'.repeat(size) });
    expect(put.status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${init.json.file_id}/complete`, undefined, key)).status).toBe(200);
    return (await h.api('GET', `/v1beta/files/${init.json.file_id}`, undefined, key)).json;
  }
  const runOutput = (name: string, size: number, runId: string, connectorId: string | null) =>
    h.services.files.saveRunOutput({ userId, runId, connectorId, name, contentType: 'text/plain', body: Buffer.alloc(size, 'y') });

  const list = async (qs: string) => {
    const r = await h.api('GET', `/v1beta/files?${qs}`, undefined, key);
    expect(r.status, r.text).toBe(200);
    return r.json as { data: F[]; has_more: boolean; next_cursor: string | null };
  };
  const ids = (fs: F[]) => fs.map((f) => f.id);

  async function walk(qs: string, during?: (step: number) => unknown): Promise<F[]> {
    const seen: F[] = [];
    let cursor: string | null = null;
    for (let step = 0; step < 200; step++) {
      const page = await list(`${qs}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data);
      if (during) await during(step);
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        return seen;
      }
      cursor = page.next_cursor;
    }
    throw new Error('walk did not end');
  }

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key, userId } = await h.newUser('lister'));
    // Sizes repeat and sources repeat, so ties exercise the id tie-break.
    all.push(await uploadAs('Report 100%_final.txt', 3));
    all.push(await uploadAs('report-draft.txt', 5));
    all.push(await uploadAs('zeta.txt', 0));
    all.push(await uploadAs('alpha.txt', 5));
    for (const [name, size, run, conn] of [
      ['out-1.json', 7, 'run-a', 'conn-1'],
      ['out-2.json', 3, 'run-a', 'conn-1'],
      ['REPORT.csv', 5, 'run-b', 'conn-2'],
      ['beta.bin', 12, 'run-b', null],
    ] as const) {
      all.push(await runOutput(name, size, run, conn));
    }
    // Noise that must never show: a pending file of ours and another user's file.
    await h.api('POST', '/v1beta/files', { name: 'report pending.txt', size_bytes: 1, content_type: 'text/plain' }, key);
    await h.services.files.saveRunOutput({
      userId: h.userId,
      runId: 'run-a',
      connectorId: 'conn-1',
      name: 'report other.txt',
      contentType: 'text/plain',
      body: Buffer.from('o'),
    });
  });
  afterAll(async () => h?.close());

  it('lists only available files of the caller, newest first by default', async () => {
    const page = await list('');
    const expected = [...all].sort((a, b) => (b.created_at + b.id).localeCompare(a.created_at + a.id));
    expect(ids(page.data)).toEqual(ids(expected));
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    expect(page.data.find((f) => f.name.startsWith('alpha'))).toMatchObject({ source: 'UPLOAD', run_id: null, crc32c: expect.any(String) });
  });

  it.each([
    ['run_id=run-a', (f: F) => f.run_id === 'run-a'],
    ['run_id=nope', () => false],
    ['source=UPLOAD', (f: F) => f.source === 'UPLOAD'],
    ['source=RUN_OUTPUT', (f: F) => f.source === 'RUN_OUTPUT'],
    ['filename=report', (f: F) => f.name.toLowerCase().includes('report')],
    ['filename=REPORT', (f: F) => f.name.toLowerCase().includes('report')],
    ['filename=100%25_', (f: F) => f.name.includes('100%_')],
    ['filename=%25', (f: F) => f.name.includes('%')],
    ['filename=_', (f: F) => f.name.includes('_')],
    ['filename=.JSON', (f: F) => f.name.endsWith('.json')],
    ['source=RUN_OUTPUT&filename=report', (f: F) => f.source === 'RUN_OUTPUT' && f.name.toLowerCase().includes('report')],
  ])('filters by %s', async (qs, pred) => {
    const page = await list(`${qs}&sort=name&order=asc`);
    expect(page.data.map((f) => f.name)).toEqual(
      all
        .filter(pred)
        .map((f) => f.name)
        .sort(),
    );
  });

  it('filters by connector_id', async () => {
    expect((await list('connector_id=conn-1&sort=name&order=asc')).data.map((f) => f.name)).toEqual(['out-1.json', 'out-2.json']);
    expect((await list('connector_id=conn-2')).data.map((f) => f.name)).toEqual(['REPORT.csv']);
  });

  const cmp = (sort: keyof F) => (a: F, b: F) => {
    const x = a[sort] as string | number;
    const y = b[sort] as string | number;
    if (x !== y) return x < y ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };

  describe.each(['name', 'created_at', 'size_bytes', 'source'] as const)('sort=%s', (sort) => {
    it.each(['asc', 'desc'] as const)('order=%s, in one page and walking with limit=1', async (order) => {
      const expected = [...all].sort(cmp(sort));
      if (order === 'desc') expected.reverse();
      expect(ids((await list(`sort=${sort}&order=${order}`)).data)).toEqual(ids(expected));
      expect(ids(await walk(`sort=${sort}&order=${order}`))).toEqual(ids(expected));
    });
  });

  it('visits every file exactly once while files are created during the walk', async () => {
    for (const [sort, order] of [
      ['created_at', 'desc'],
      ['created_at', 'asc'],
      ['size_bytes', 'asc'],
      ['name', 'desc'],
    ] as const) {
      const before = ids((await list(`sort=${sort}&order=${order}&limit=100`)).data);
      let n = 0;
      const seen = ids(
        await walk(`sort=${sort}&order=${order}`, (step) =>
          step < 6 ? runOutput(`during-${sort}-${order}-${n++}.txt`, n % 4, 'run-walk', null) : null,
        ),
      );
      expect(n).toBe(6);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen).toContain(id);
    }
  });

  it('pages with the default limit of 20 and an explicit limit', async () => {
    const total = (await list('limit=100')).data.length;
    expect(total).toBeGreaterThan(20);
    const first = await list('');
    expect(first.data.length).toBe(20);
    expect(first.has_more).toBe(true);
    const rest = await list(`cursor=${first.next_cursor}&limit=100`);
    expect(rest.data.length).toBe(total - 20);
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
    const three = await list('limit=3&sort=name&order=asc');
    expect(three.data.length).toBe(3);
  });
});
