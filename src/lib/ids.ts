import { v7 as uuidv7, validate, version } from 'uuid';

/** Time-ordered UUIDv7: every resource id, so ids sort by creation. */
export function newId(): string {
  return uuidv7();
}

export function isUuid(s: string): boolean {
  return validate(s) && version(s) >= 1;
}

export function nowIso(): string {
  return new Date().toISOString();
}
