// Synthesis stages on pages saved from a twenty-third real application, Shaarli 0.12 (Debian's
// shaarli; scripts/acceptance-setup.sh): a search that found one bookmark, recorded after the home
// page that lists every bookmark — the hit is printed there too, at the same place — and cards that
// each follow an empty anchor `<div>` of the same tag.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const FIX = path.join(__dirname, '../../fixtures/real/shaarli');
const home = fs.readFileSync(path.join(FIX, 'home.html'), 'utf8');
const search = fs.readFileSync(path.join(FIX, 'search.html'), 'utf8');
const O = 'http://127.0.0.1:8987';

describe('a Shaarli search that found one bookmark', () => {
  const r = synthesize({
    recording: har({ url: `${O}/`, at: 1000, html: home }, { url: `${O}/?searchterm=quince&searchtags=`, at: 2000, html: search }),
    hints: { arguments: { query: 'quince' } },
  });
  const items = (r.definition as any).steps.at(-1).extract.items;

  it('is a list of its hits, though the home page recorded before it prints the same card', () => {
    expect(items).toMatchObject({ from: 'css', all: true });
    const one = extractValue(items, new View({ url: O, status: 200, text: search }), 'items') as any[];
    expect(one).toHaveLength(1);
    expect(JSON.stringify(one[0])).toContain('Simmer whole quinces');
  });

  it('read on a page of many hits: every card, and none of the empty anchors between them', () => {
    const many = extractValue(items, new View({ url: O, status: 200, text: home }), 'items') as any[];
    expect(many.length).toBe(7);
    for (const hit of many) expect(Object.values(hit).some((v) => typeof v === 'string' && v.length > 3)).toBe(true);
    expect(JSON.stringify(many)).toContain('Pressing cider at home');
  });
});
