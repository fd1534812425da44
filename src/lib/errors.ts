// Domain errors: what went wrong, in the domain's words, with a stable code. Services, synthesis,
// formats and the runtime throw these and know nothing of HTTP; src/http/errors.ts maps each code
// to a status in one table. Invalid input carries neutral problems (pydantic v2's vocabulary:
// loc, msg, type, input, ctx), which is also what a 422 body lists.

export type ErrorCode = 'not_found' | 'conflict' | 'invalid_input' | 'too_many_requests' | 'unavailable' | 'internal';

export type Loc = (string | number)[];

export interface Problem {
  loc: Loc;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For too_many_requests / unavailable: when trying again makes sense. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** Input that breaks a rule; every problem found, not only the first. */
export class InvalidInput extends DomainError {
  constructor(readonly problems: Problem[]) {
    super('invalid_input', problems.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '));
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', message);
export const tooManyRequests = (message: string, retryAfterS: number) => new DomainError('too_many_requests', message, retryAfterS);
export const unavailable = (message: string) => new DomainError('unavailable', message);

export function invalid(loc: Loc, msg: string, type = 'value_error', extra: Partial<Problem> = {}): InvalidInput {
  return new InvalidInput([{ loc, msg, type, ...extra }]);
}
