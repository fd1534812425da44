// A number in the address of a page opened by clicking a link is read from that link at run time
// (DAViCal's "Create Collection", davical-pages.test.ts) — but not from a link an argument names:
// the person chose that row, and another run's page has another row (Nagios's "Replication lag",
// saved from the acceptance suite's Nagios), nor a one-digit kind of page (`type=2`).
import { describe, expect, it } from 'vitest';
import { synthSaved } from '../../helpers/saved-recordings.js';

const LOGIN = { username: 'nagiosadmin', password: 'ng-pass-1' };

describe('a number from the link the person clicked', () => {
  it("not from a link an argument names: Nagios's service page keeps its `type=2`", () => {
    const d = synthSaved('nagios', 'ng-service', { host: 'orchard-db', service: 'Replication lag' }, LOGIN).definition;
    const last = d.steps.at(-1);
    expect(last.query).toEqual({ type: '2', host: '{{args.host}}', service: '{{args.service}}' });
    expect(JSON.stringify(d.steps)).not.toContain('Replication lag');
  });
});
