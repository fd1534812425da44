// All mutable state of the demo site lives in one in-memory object, so a test can inspect it and
// POST /__reset can put it back to the seed without restarting the server.
import { randomBytes } from 'node:crypto';
import { seedItems, SEED_ITEM_COUNT, USERS, type Item, type User } from './data.js';

export interface Session {
  id: string;
  username: string;
  /** Double-submit token for the create-item form (also sent as the demo_csrf cookie). */
  csrf: string;
}

/** Anonymous browser state from the first GET /login, keyed by the demo_pre cookie. */
export interface PreSession {
  id: string;
  csrf: string;
  /** Set after a correct password for a TOTP user; cleared when the code is accepted. */
  pendingUser?: string;
  next?: string;
}

/** A signing key handed to one rendering of /signed (see signed.ts). */
export interface SigningPage {
  key: Buffer;
  sessionId: string;
  issuedAt: number;
}

export interface Toggles {
  /** true: GET /api/flaky answers 503; a number n: only the next n calls do. */
  flaky: boolean | number;
  /** Every non-/__ route answers the "Verify you are human" page with 403. */
  challenge: boolean;
  /** Detail/list pages use renamed attributes (data-field → data-prop, item-row → product-row). */
  changed_markup: boolean;
  /** Every non-/__ route answers 503 (whole site down). */
  outage: boolean;
  /** A TOTP code is accepted once per user and 30 s step, like real sites with replay protection. */
  single_use_totp: boolean;
}

export interface DemoState {
  items: Item[];
  nextId: number;
  users: readonly User[];
  sessions: Map<string, Session>;
  preSessions: Map<string, PreSession>;
  signingPages: Map<string, SigningPage>;
  /** Request nonces already accepted by /api/signed-search, with the time they were seen. */
  usedNonces: Map<string, number>;
  /** "user:step" of TOTP codes accepted (checked with the single_use_totp toggle). */
  usedTotpSteps: Set<string>;
  /** TOTP codes refused as reused, and accepted, by user (tests read them). */
  totpLog: { username: string; step: number; accepted: boolean; reused: boolean }[];
  toggles: Toggles;
}

export const defaultToggles = (): Toggles => ({
  flaky: false,
  challenge: false,
  changed_markup: false,
  outage: false,
  single_use_totp: false,
});

export function createState(): DemoState {
  return {
    items: seedItems(),
    nextId: SEED_ITEM_COUNT + 1,
    users: USERS,
    sessions: new Map(),
    preSessions: new Map(),
    signingPages: new Map(),
    usedNonces: new Map(),
    usedTotpSteps: new Set(),
    totpLog: [],
    toggles: defaultToggles(),
  };
}

/** Back to the seed in place (the object identity stays, so holders of `state` see the reset). */
export function resetState(state: DemoState): void {
  Object.assign(state, createState());
}

export const newToken = (bytes = 18): string => randomBytes(bytes).toString('base64url');

export function createSession(state: DemoState, username: string): Session {
  const session: Session = { id: newToken(), username, csrf: newToken() };
  state.sessions.set(session.id, session);
  return session;
}

export function userOf(state: DemoState, session: Session): User {
  const user = state.users.find((u) => u.username === session.username);
  if (!user) throw new Error(`session for unknown user ${session.username}`);
  return user;
}
