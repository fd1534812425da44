// MCP tool names from connector names: MCP's pattern, stable de-duplication (oldest keeps the
// plain name), the fixed tools' names reserved.
import { describe, expect, it } from 'vitest';
import { assignToolNames, sanitizeToolName, TOOL_NAME } from '../../src/modules/mcp/tools.js';

describe('sanitizeToolName', () => {
  it.each([
    ['Demo Shop — search items!', 'demo_shop_search_items'],
    ['Crème brûlée: Rezepte', 'creme_brulee_rezepte'],
    ['  --already_fine-name--  ', 'already_fine-name'],
    ['Ünïcödé ΑΒΓ only', 'unicode_only'],
    ['日本語', 'connector'],
    ['', 'connector'],
    ['a/b\\c.d e\u0000f', 'a_b_c_d_e_f'],
  ])('%j → %j', (input, out) => {
    expect(sanitizeToolName(input)).toBe(out);
    expect(out).toMatch(TOOL_NAME);
  });

  it('cuts long names to 64 characters without a trailing separator', () => {
    const n = sanitizeToolName(`${'x'.repeat(63)} yyy`);
    expect(n).toBe('x'.repeat(63));
    expect(sanitizeToolName('y'.repeat(300))).toHaveLength(64);
  });
});

describe('assignToolNames', () => {
  it('keeps the oldest on the plain name, suffixes the rest, and never takes a fixed tool name', () => {
    const long = 'L'.repeat(80);
    const m = assignToolNames([
      { id: 'a', display_name: 'Search' },
      { id: 'b', display_name: 'search!' },
      { id: 'c', display_name: 'SEARCH' },
      { id: 'd', display_name: 'List runs' },
      { id: 'e', display_name: 'search_2' },
      { id: 'f', display_name: long },
      { id: 'g', display_name: long },
    ]);
    expect([...m]).toEqual([
      ['search', 'a'],
      ['search_2', 'b'],
      ['search_3', 'c'],
      ['list_runs_2', 'd'],
      ['search_2_2', 'e'],
      ['l'.repeat(64), 'f'],
      [`${'l'.repeat(62)}_2`, 'g'],
    ]);
    for (const name of m.keys()) expect(name).toMatch(TOOL_NAME);
  });
});
