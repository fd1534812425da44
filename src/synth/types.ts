// Internal model of the synthesizer: a recording normalized once (capture-session HAR with our
// extensions, or a plain HAR from DevTools / Playwright), and the facts each stage adds.
import type { Action, HarCookie, HarNameValue, HarPostParam, SecretField } from '../formats/recording/types.js';
import type { SecretValue } from '../formats/secret.js';

/** One logical request: what the client sent, with redirect hops folded into `final`. */
export interface Exchange {
  /** Entry id (`_id`, or e<n> for a plain HAR). */
  id: string;
  /** Position in request-start order. */
  index: number;
  /** ms since epoch of the request start. */
  time: number;
  method: string;
  url: string;
  reqHeaders: HarNameValue[];
  reqCookies: HarCookie[];
  /** `missing`: the request had a (multipart) body that the recording does not hold. */
  /** `sha256`: of the whole body, when the recording has it (a raw body: is it a chosen file?). */
  body: { mime: string; text?: string; params?: HarPostParam[]; missing?: boolean; sha256?: string } | null;
  status: number;
  resHeaders: HarNameValue[];
  setCookies: HarCookie[];
  mime: string;
  text: string | undefined;
  redirectURL: string;
  resourceType: string;
  actionId: string | null;
  isNavigation: boolean;
  /** Redirect hops that followed this request (their ids), in order; final response is the last one. */
  hops: string[];
  /** URL of the final response after redirects. */
  finalUrl: string;
  /** A 2xx answer with no body named the next page in this header, and the page's script went
   * there (Icinga Web's `X-Icinga-Redirect`): folded as a redirect hop. */
  redirectHeader?: string;
  /** Capture recordings: the entry this one is a redirect hop of. */
  redirectedFrom?: string | null;
  /** A synthetic GET of the page an exchange landed on: the id of that exchange (it must run first). */
  after?: string;
}

export interface Recording {
  source: 'capture' | 'har';
  exchanges: Exchange[];
  actions: Action[];
  /** Pasted secrets (capture sessions only). */
  pasted: { secret_id: string; field: SecretField; placeholder: string; field_name: string | null }[];
  sessionId: string | null;
  /** Users whose HTTP Digest answers the browser sent (taken off the requests: see normalize.ts). */
  digestUsers: string[];
}

/** Hints from the caller (all optional). */
export interface Hints {
  /** Argument name → example value as it appears in the recording. */
  arguments?: Record<string, unknown>;
  /** Slot name → stored secret id (resolved by the server before synthesis: see SecretValues). */
  secrets?: Record<string, string>;
  /** Example values (or an object of them) that must appear in the result. */
  result?: unknown;
  allow_side_effects?: boolean;
  /** Drive the site's own pages in a browser even where HTTP replay would work (anti-bot sites). */
  prefer_browser?: boolean;
  /**
   * Publish even when the read flow's output carries no data from the page (status and URL only)
   * or misses hinted result values; the problem is then a warning in meta.warnings.
   */
  allow_empty_result?: boolean;
  /** Free text; kept in meta. */
  notes?: string;
}

/** Credentials typed by hand in the recording (not pasted): usable for a replay, never emitted. */
export type RecordedSecrets = Record<
  string,
  { type: 'login'; username: string; password: string; totp_secret: null } | { type: 'string'; value: string }
>;

/** Secret values resolved inside the server for the duration of one synthesis; never emitted. */
export type SecretValues = Record<string, SecretValue>;

/** (`cookie`: a cookie the page's script set from a value it read: traced, never a request literal.) */
export type SlotWhere = 'path' | 'query' | 'form' | 'multipart' | 'json' | 'header' | 'text' | 'cookie';

/** A literal in a request that the plan must reproduce. */
export interface Slot {
  exchange: string;
  where: SlotWhere;
  /** Query/form/header name, JSON path segments joined, or path segment index. */
  key: string;
  /** JSON leaf path (where = json). */
  jsonPath?: (string | number)[];
  value: string;
  /** JSON type of a JSON leaf. */
  jsonType?: 'string' | 'number' | 'boolean' | 'null';
  /** Position among the request's query / form / multipart fields (repeated keys keep their order). */
  pos?: number;
}

export interface SynthProblem {
  stage: string;
  message: string;
  exchange?: string;
  value_preview?: string;
}

export class SynthError extends Error {
  constructor(readonly problems: SynthProblem[]) {
    super(problems.map((p) => p.message).join('; '));
  }
}
