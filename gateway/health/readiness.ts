import type { FastifyInstance } from 'fastify'
import { rendererBuilds } from '../plugins/app/build-info.ts'

export interface ReadinessReport {
  status: 'ready' | 'not ready'
  checks: Record<string, string>
  schema: { craftVersion: number; failing: Record<string, string[]> }
  /** The builds in service: this gateway's, and its renderers' that are up (how many run each); mixed while they differ (a roll, a rollback of one service). */
  builds: { gateway: string; renderers: Record<string, number>; mixed: boolean }
}

/**
 * A renderer and the CMS answer and Craft's schema has been checked (and
 * whether Redis does, when configured). Operations Craft's schema refuses are
 * reported but do not make the gateway unready: every other page works.
 */
export async function checkReadiness(app: FastifyInstance): Promise<ReadinessReport> {
  const [renderer, upstream, redis] = await Promise.all([app.renderers.healthy(), app.content.ping(), app.sharedCache?.ping(), app.craftSchema.settled()])
  const schema = app.craftSchema.status
  const ready = renderer && upstream && app.craftSchema.ready
  return {
    status: ready ? 'ready' : 'not ready',
    checks: {
      renderer: renderer ? 'ok' : 'unreachable',
      upstream: upstream ? 'ok' : 'unreachable',
      schema: schema.state,
      // Redis is reported, not required: without it the gateway serves from memory and the CMS.
      ...(redis === undefined ? {} : { redis: redis ? 'ok' : 'unreachable' }),
    },
    schema: { craftVersion: schema.craftVersion, failing: schema.failing },
    builds: buildsInService(app),
  }
}

function buildsInService(app: FastifyInstance): ReadinessReport['builds'] {
  const renderers = rendererBuilds(app)
  return { gateway: app.build.id, renderers: Object.fromEntries(renderers), mixed: [...renderers.keys()].some((id) => id !== app.build.id) }
}

export interface ReadinessOptions {
  check: () => Promise<ReadinessReport>
  /** How long a result is kept, counted from when its check ended. */
  cacheMs: number
  /** Milliseconds on a monotonic clock; tests drive their own. */
  now?: () => number
  onChange?: (report: ReadinessReport) => void
}

/**
 * Readiness as last checked. However many probes arrive, one check runs at a
 * time and its result answers every probe for `cacheMs`, so probing the
 * gateway never multiplies calls to the CMS, the renderers or Redis.
 */
export class Readiness {
  private last: { report: ReadinessReport; at: number } | undefined
  private running: Promise<ReadinessReport> | undefined
  private readonly now: () => number

  constructor(private readonly options: ReadinessOptions) {
    this.now = options.now ?? (() => performance.now())
  }

  /** The next probe checks again instead of taking the last result (something it reports may have changed). */
  forget(): void {
    this.last = undefined
  }

  current(): Promise<ReadinessReport> {
    if (this.last && this.now() - this.last.at < this.options.cacheMs) return Promise.resolve(this.last.report)
    this.running ??= this.options
      .check()
      .then((report) => {
        if (report.status !== this.last?.report.status) this.options.onChange?.(report)
        this.last = { report, at: this.now() }
        return report
      })
      .finally(() => {
        this.running = undefined
      })
    return this.running
  }
}
