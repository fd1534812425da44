// A run failure raised by an engine or a script: becomes a RunError with its type.
import type { RunErrorType } from '../../formats/definition/types.js';

export interface RunErrorView {
  type: RunErrorType;
  message: string;
  retryable: boolean | null;
  exception: string | null;
  details: Record<string, unknown> | null;
}

export class RunFailure extends Error {
  constructor(
    readonly type: RunErrorType,
    message: string,
    readonly opts: { retryable?: boolean | null; details?: Record<string, unknown> | null; exception?: string | null } = {},
  ) {
    super(message);
  }

  toView(): RunErrorView {
    return {
      type: this.type,
      message: this.message,
      retryable: this.opts.retryable ?? DEFAULT_RETRYABLE[this.type],
      exception: this.opts.exception ?? null,
      details: this.opts.details ?? null,
    };
  }
}

/** What a retry with the same arguments is expected to do, when the raiser didn't say. */
const DEFAULT_RETRYABLE: Record<RunErrorType, boolean | null> = {
  auth_required: false,
  invalid_input: false,
  site_unavailable: true,
  anti_bot: null,
  site_changed: false,
  internal_error: true,
  crash: null,
  unhandled: null,
};

/** Any thrown value as a RunError: RunFailure keeps its type, anything else is `unhandled`. */
export function toRunError(e: unknown): RunErrorView {
  if (e instanceof RunFailure) return e.toView();
  const err = e as { name?: string; constructor?: { name?: string }; message?: string };
  const exception = String((e && typeof e === 'object' && (err.constructor?.name || err.name)) || typeof e);
  return { type: 'unhandled', message: String(err?.message ?? e).slice(0, 2000), retryable: null, exception, details: null };
}

/** A request the egress policy refused (src/egress): not retryable, the message names the rule. */
export function egressFailure(d: { rule: string; message: string }): RunFailure {
  return new RunFailure('invalid_input', d.message, { retryable: false, details: { egress_rule: d.rule } });
}
