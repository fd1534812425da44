// Extractor paths: the synthesizer's plain paths are walked by name (a key may hold any character);
// every other JSONPath goes to jsonpath-plus, and a plain path finds what jsonpath-plus finds.
import { JSONPath } from 'jsonpath-plus';
import { describe, expect, it } from 'vitest';
import { jsonPathMatches, jsonPathValues, plainSegments } from '../../src/lib/json-path.js';
import { jp } from '../../src/synth/slots.js';

const doc = {
  data: {
    id: 'wf1',
    connections: {
      "When clicking 'Execute workflow'": { main: [[{ node: 'Open the valves', index: 0 }]] },
      'Rows, north': { main: [[{ node: 'Say "when"' }]] },
      'a.b': 1,
    },
    rows: [{ n: 'pear' }, { n: 'plum' }],
  },
};

describe('JSONPath of extractors', () => {
  it('a key holding a quote, a comma or a dot is found by the path the synthesizer writes for it', () => {
    for (const [path, value] of [
      [['data', 'connections', "When clicking 'Execute workflow'", 'main', 0, 0, 'node'], 'Open the valves'],
      [['data', 'connections', 'Rows, north', 'main', 0, 0, 'node'], 'Say "when"'],
      [['data', 'connections', 'a.b'], 1],
    ] as const) {
      expect(jsonPathValues(jp([...path]), doc)).toEqual([value]);
    }
    // (jsonpath-plus alone finds nothing there: why plain paths are walked here.)
    const quoted = jp(['data', 'connections', "When clicking 'Execute workflow'", 'main']);
    expect(JSONPath({ path: quoted, json: doc, wrap: true })).toEqual([]);
  });

  it('a plain path finds what jsonpath-plus finds, with the same keys', () => {
    for (const path of [
      '$',
      '$.data',
      '$.data.rows[*].n',
      '$.data.rows[1]',
      '$.data.connections.*',
      '$.data["rows"][0]["n"]',
      "$.data['id']",
      '$.data.none',
      '$.data.rows[5]',
    ]) {
      expect(plainSegments(path), path).not.toBeNull();
      const theirs = JSONPath({ path, json: doc, wrap: true, resultType: 'all' }) as { value: unknown; parentProperty: unknown }[];
      expect(
        jsonPathMatches(path, doc).map((m) => m.value),
        path,
      ).toEqual(theirs.map((m) => m.value));
      if (path !== '$')
        expect(
          jsonPathMatches(path, doc).map((m) => String(m.parentProperty)),
          path,
        ).toEqual(theirs.map((m) => String(m.parentProperty)));
    }
  });

  it('any other JSONPath (a filter, recursive descent) is jsonpath-plus’s', () => {
    expect(plainSegments('$.data.rows[?(@.n=="plum")].n')).toBeNull();
    expect(plainSegments(`$.data["it\\'s"]`)).toBeNull(); // (an escape JSON has not: no plain path)
    expect(jsonPathValues(`$.data["it\\'s"]`, doc)).toEqual([]);
    expect(jsonPathValues('$.data.rows[?(@.n=="plum")].n', doc)).toEqual(['plum']);
    expect(jsonPathValues('$..node', doc)).toEqual(['Open the valves', 'Say "when"']);
  });
});
