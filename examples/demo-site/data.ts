// Fixed seed data for the demo site. Everything here is deterministic so that a flow recorded
// today replays against the same items, users and ids tomorrow.

export interface Item {
  id: number;
  name: string;
  category: string;
  price: number;
  in_stock: boolean;
  created_at: string;
  description: string;
}

export interface User {
  username: string;
  password: string;
  /** Base32 RFC 6238 seed; when set, login needs a second step at /login/totp. */
  totpSeed?: string;
  displayName: string;
  email: string;
  plan: string;
  balance: number;
}

/** Documented in README.md; anyone (tests, connectors) can compute bob's codes from it. */
export const BOB_TOTP_SEED = 'JBSWY3DPEHPK3PXP';

export const USERS: readonly User[] = [
  {
    username: 'alice',
    password: 'wonderland',
    displayName: 'Alice Liddell',
    email: 'alice@demo-site.test',
    plan: 'free',
    balance: 12.5,
  },
  {
    username: 'bob',
    password: 'builder',
    totpSeed: BOB_TOTP_SEED,
    displayName: 'Bob Builder',
    email: 'bob@demo-site.test',
    plan: 'pro',
    balance: 1024,
  },
];

export const CATEGORIES = ['tools', 'garden', 'kitchen', 'toys'] as const;

// 5 words x 8 nouns: since gcd(5, 8) = 1, ids 1..40 give 40 distinct names, and each Greek word
// appears on 8 items spread over the whole id range (so "gamma" spans several pages).
const WORDS = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'];
const NOUNS = ['Widget', 'Sprocket', 'Gizmo', 'Lantern', 'Kettle', 'Trowel', 'Yo-yo', 'Compass'];
export const SEED_ITEM_COUNT = 40;

/** Seed items are dated from this instant, one day and one hour apart. */
const SEED_EPOCH = Date.UTC(2024, 0, 1, 9, 0, 0);

export function seedItems(): Item[] {
  const items: Item[] = [];
  for (let id = 1; id <= SEED_ITEM_COUNT; id++) {
    const word = WORDS[(id - 1) % WORDS.length];
    const noun = NOUNS[(id - 1) % NOUNS.length];
    items.push({
      id,
      name: `${word} ${noun}`,
      category: CATEGORIES[(id - 1) % CATEGORIES.length],
      // Cents on purpose: a number, not a string, with a fractional part to test parsing.
      price: Math.round(((id * 37) % 100) * 100 + 99) / 100,
      in_stock: id % 3 !== 0,
      created_at: new Date(SEED_EPOCH + (id - 1) * 25 * 3600_000).toISOString(),
      description: `A ${word.toLowerCase()}-grade ${noun.toLowerCase()} for the ${CATEGORIES[(id - 1) % CATEGORIES.length]} shelf.`,
    });
  }
  return items;
}
