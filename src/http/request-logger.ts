// Request loggers made on first use. Fastify gives every request a child logger carrying its
// request id, and pino builds a child eagerly (bindings serialized, redaction prepared: ≈2 µs)
// although at the production level (warn) most requests never write a line. The lazy child
// writes exactly what pino's child would, and only builds that child when a line is enabled.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent } from 'pino';

const LEVEL_VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

class LazyChildLogger {
  #child: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings);
    return this.#child;
  }

  /** Whether a line at `level` would be written (pino's own answer once the child exists). */
  isLevelEnabled(level: string): boolean {
    const l = this.#child ?? this.parent;
    const value = (l as { levelVal?: number }).levelVal;
    const wanted = LEVEL_VALUES[level];
    // Not a pino-like logger: build the child and let it decide.
    if (typeof value !== 'number' || wanted === undefined) return true;
    return wanted >= value;
  }

  get level(): LevelWithSilent | string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: LevelWithSilent | string) {
    this.#real().level = level;
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, opts);
  }

  fatal(...args: unknown[]) {
    if (this.isLevelEnabled('fatal')) (this.#real().fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]) {
    if (this.isLevelEnabled('error')) (this.#real().error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]) {
    if (this.isLevelEnabled('warn')) (this.#real().warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]) {
    if (this.isLevelEnabled('info')) (this.#real().info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]) {
    if (this.isLevelEnabled('debug')) (this.#real().debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]) {
    if (this.isLevelEnabled('trace')) (this.#real().trace as (...a: unknown[]) => void)(...args);
  }
  silent() {}
}

/**
 * Fastify's `childLoggerFactory`. Route options that change the child (a `logLevel`, serializers)
 * get pino's child at once, as Fastify would make it.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
  if (opts && !isEmpty(opts)) return logger.child(bindings, opts);
  return new LazyChildLogger(logger, bindings) as unknown as FastifyBaseLogger;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

const infoEnabled = (req: FastifyRequest) => (req.log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('info') ?? true;

/**
 * Fastify's request lines ("incoming request", "request completed") are at info: when info is
 * off, skip building their objects (and reading the clock) instead of handing them to a no-op.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    if (infoEnabled(request)) super.incomingRequest(request, reply, metadata);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ) {
    if (error || infoEnabled(request)) super.requestCompleted(error, request, reply, metadata);
  }
}
