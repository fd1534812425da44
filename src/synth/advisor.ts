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

export const deterministicAdvisor: SynthAdvisor = {
  id: 'deterministic',
  rankTargets: (c) => c,
  nameArgument: (proposed) => proposed,
  describeArgument: (name, c) => `${name.replace(/_/g, ' ')} (sent as ${c.where} "${c.field}"; recorded as ${JSON.stringify(c.example)})`,
};
