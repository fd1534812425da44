// The seam where an optional model could improve choices later (target ranking, argument names,
// descriptions). Synthesis calls only this interface; the default is deterministic and nothing
// depends on a model being present.
import type { Candidate } from './target.js';

export interface SynthAdvisor {
  readonly id: string;
  /** Reorders target candidates (best first). Must return the same candidates. */
  rankTargets(candidates: Candidate[], ctx: { purpose: string }): Candidate[];
  /** A better name for an argument found in the recording (must be a snake_case identifier). */
  nameArgument(proposed: string, ctx: { field: string; example: string; purpose: string }): string;
  /** A description for an argument's JSON Schema. */
  describeArgument(name: string, ctx: { field: string; example: string; where: string }): string;
}

const STOP = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'that', 'this', 'get', 'all', 'list', 'show', 'find', 'make']);

/** Words of the purpose that also name an endpoint ("search the catalogue" → /api/search) add a point. */
function byPurpose(cands: Candidate[], purpose: string): Candidate[] {
  const words = purpose
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 4 && !STOP.has(w));
  if (!words.length) return cands;
  return cands
    .map((c) => {
      const path = new URL(c.exchange.url).pathname.toLowerCase();
      const hit = words.filter((w) => path.includes(w) || path.includes(w.replace(/e?s$/, '')));
      return hit.length
        ? {
            ...c,
            score: c.score + 1,
            evidence: c.evidence + 1,
            reasons: [...c.reasons, `+1 the purpose mentions ${hit.map((w) => JSON.stringify(w)).join(', ')}`],
          }
        : c;
    })
    .sort((a, b) => b.score - a.score || b.exchange.index - a.exchange.index);
}

export const deterministicAdvisor: SynthAdvisor = {
  id: 'deterministic',
  rankTargets: (c, ctx) => byPurpose(c, ctx.purpose),
  nameArgument: (proposed) => proposed,
  describeArgument: (name, c) => `${name.replace(/_/g, ' ')} (sent as ${c.where} "${c.field}"; recorded as ${JSON.stringify(c.example)})`,
};
