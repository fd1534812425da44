// A secret's value, the one shape everywhere it travels: the vault stores it, a run receives it
// per slot, synthesis recognises it in recordings. A login may carry a TOTP seed (base32).
export type SecretValue =
  | { type: 'login'; username: string; password: string; totp_secret: string | null }
  | { type: 'string'; value: string };
