/**
 * fastify's per-request logger (`req.log`), made on first use. fastify gives every
 * request a pino child bound to its reqId, and pino serializes that binding as soon as
 * the child is made: 1.5–2 % of a tools/list's CPU in a profile, for a logger most
 * requests never write to at `warn`. The child here is made by the first line written
 * at an enabled level (or the first `child`, `bindings` or `level` change), from the
 * same parent, bindings and options, so every line is the one the eager child wrote.
 */
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type LogArgs = [unknown, ...unknown[]];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];

interface PinoLike extends FastifyBaseLogger {
  isLevelEnabled?(level: string): boolean;
  bindings?(): Bindings;
}

class LazyChild {
  private made: PinoLike | undefined;

  constructor(
    private readonly parent: PinoLike,
    private readonly binds: Bindings,
  ) {}

  private real(): PinoLike {
    return (this.made ??= this.parent.child(this.binds) as PinoLike);
  }

  /** Until the child exists its level is its parent's, as a pino child's is. */
  private enabled(level: string): boolean {
    if (this.made) return true;
    return this.parent.isLevelEnabled ? this.parent.isLevelEnabled(level) : true;
  }

  get level(): string {
    return this.made ? this.made.level : this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    const at = this.made ?? this.parent;
    return at.isLevelEnabled ? at.isLevelEnabled(level) : true;
  }

  write(level: Level, args: LogArgs): void {
    if (!this.enabled(level)) return;
    const real = this.real();
    // pino's methods read their logger from `this`.
    (real[level] as (...a: LogArgs) => void).apply(real, args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  bindings(): Bindings {
    return this.real().bindings?.() ?? {};
  }
}

// The level methods (`req.log.warn(…)`), on the prototype: one function each, not one
// per request.
for (const level of LEVELS)
  Object.defineProperty(LazyChild.prototype, level, {
    value(this: LazyChild, ...args: LogArgs): void {
      this.write(level, args);
    },
  });

/**
 * fastify's `childLoggerFactory`: a lazy child when the route sets no log level or
 * serializers of its own (none of ours does), fastify's default otherwise.
 */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: object,
): FastifyBaseLogger {
  for (const _ in options) return logger.child(bindings, options);
  return new LazyChild(logger, bindings) as unknown as FastifyBaseLogger;
}
