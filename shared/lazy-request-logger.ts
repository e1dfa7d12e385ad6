import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LevelCheck = { isLevelEnabled?: (level: string) => boolean }

/**
 * A request's logger that makes pino's child (its bindings, the request id,
 * serialised on creation) only when the request writes a line at a level the
 * service logs. Most requests write none: a fresh page made a child on every
 * request, a few µs of each page in the profile. Once made, or once its level
 * is set, every call goes to the child.
 */
class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private get made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings))
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level
  }

  set level(level: string) {
    this.made.level = level
  }

  isLevelEnabled(level: string): boolean {
    const asked = (this.#child ?? this.parent) as LevelCheck
    return typeof asked.isLevelEnabled === 'function' ? asked.isLevelEnabled(level) : true
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options)
  }

  silent(): void {}

  private write(level: LevelName, args: unknown[]): void {
    if (this.#child === undefined && !this.isLevelEnabled(level)) return
    ;(this.made[level] as (...line: unknown[]) => void)(...args)
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args)
  }

  error(...args: unknown[]): void {
    this.write('error', args)
  }

  warn(...args: unknown[]): void {
    this.write('warn', args)
  }

  info(...args: unknown[]): void {
    this.write('info', args)
  }

  debug(...args: unknown[]): void {
    this.write('debug', args)
  }

  trace(...args: unknown[]): void {
    this.write('trace', args)
  }
}

/**
 * Fastify's `childLoggerFactory`: the request's logger made lazily; a route
 * with its own log level (options) gets pino's child at once.
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options)
  return new LazyRequestLogger(logger, bindings) as unknown as FastifyBaseLogger
}
