import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { boundBy, counter, tally } from '../../../shared/metrics.ts'
import { Admission } from '../../admission/admission.ts'
import { ConcurrencyGate, type GateOutcome } from '../../admission/concurrency-gate.ts'
import { CrawlerVerifier, systemResolver } from '../../admission/crawlers.ts'
import { LoopTurns, MISSES_PER_LOOP_TURN } from '../../admission/loop-turns.ts'
import { WorkBudget } from '../../admission/work-budget.ts'
import { RendererBusyError, UpstreamBusyError } from '../../errors.ts'
import type { AppPluginOptions } from './index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Every piece of uncached work asks here: each client's budget, and what may be in flight to the CMS and the renderers. */
    admission: Admission
    /** Misses of pages go on a few per turn of the event loop, so hits that arrive meanwhile are answered between them. */
    missTurns: LoopTurns
    /** Which requests claiming a search engine's crawler come from it (reverse and forward DNS), asked without waiting. */
    crawlers: CrawlerVerifier
  }
  interface FastifyRequest {
    /** The verified crawler this request comes from, or undefined: a stranger (asking may begin its address's check, never awaited). */
    readonly crawler: string | undefined
  }
}

/** The admission layer, with its counts in /metrics: admitted, queued and refused, by kind (client budget, cms, render). */
async function admission(app: FastifyInstance, options: AppPluginOptions): Promise<void> {
  const { config } = app
  const { registry } = app.metrics
  const outcomes = counter(registry, 'admission_total', 'Uncached work asked for, by kind (client: the per-client budget; cms, render: the global bounds) and outcome (admitted, queued: admitted after a wait, refused)', ['kind', 'outcome'])
  const count = boundBy((key: string) => {
    const [kind, outcome] = key.split(':', 2) as [string, string]
    return tally(registry, outcomes, { kind, outcome })
  })
  const settings = config.admission
  const gate = (kind: 'cms' | 'render', limit: () => number, refusal: () => Error): ConcurrencyGate =>
    new ConcurrencyGate({ limit, queueMs: settings.queueMs, queueLength: settings.queueLength, refusal, onOutcome: (outcome: GateOutcome) => count(`${kind}:${outcome}`).inc() })
  // The renderers in turn now (registered after this plugin; by the first render they are there): a renderer that is
  // down takes its slots with it, so the others are not given its share. With none up, one renderer's worth.
  const renderersNow = (): number => Math.max(1, app.hasDecorator('renderers') ? app.renderers.upCount() : 1)
  const admitted = new Admission({
    budget: new WorkBudget({ units: settings.clientWorkBudget, windowMs: config.rateLimit.windowMs, maxClients: settings.maxClients }),
    crawlerBudget: new WorkBudget({ units: config.crawlers.workBudget, windowMs: config.rateLimit.windowMs, maxClients: settings.maxClients }),
    cms: gate('cms', () => settings.cmsConcurrency, () => new UpstreamBusyError()),
    renders: gate('render', () => settings.renderConcurrency * renderersNow(), () => new RendererBusyError()),
    onClient: (outcome, kind) => count(`${kind}:${outcome}`).inc(),
  })
  crawlerVerification(app, options)
  const gauge = (name: string, help: string, read: (kind: 'cms' | 'render') => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.set({ kind: 'cms' }, read('cms'))
        this.set({ kind: 'render' }, read('render'))
      },
    })
  }
  gauge('admission_in_flight', 'CMS calls and renders in flight now', (kind) => (kind === 'cms' ? admitted.cms : admitted.renders).inFlight)
  gauge('admission_waiting', 'CMS calls and renders waiting in the admission queue now', (kind) => (kind === 'cms' ? admitted.cms : admitted.renders).waiting)
  app.decorate('admission', admitted)
  const missTurns = new LoopTurns(MISSES_PER_LOOP_TURN)
  new Gauge({ name: 'page_misses_waiting_for_turn', help: 'Page misses waiting for their turn of the event loop now (a few go on per turn, so hits are answered between them)', registers: [registry], collect() { this.set(missTurns.waiting) } })
  app.decorate('missTurns', missTurns)
}

/** Crawlers checked as their operators document, with the outcomes in /metrics; `request.crawler` asks. */
function crawlerVerification(app: FastifyInstance, options: AppPluginOptions): void {
  const { config } = app
  const verified = counter(app.metrics.registry, 'crawler_verifications_total', "Checks of clients claiming a search engine's crawler, by crawler and outcome (verified, no_ptr, other_domain, forward_mismatch, failed; skipped: over a bound, not asked)", ['crawler', 'outcome'])
  const crawlers = new CrawlerVerifier({
    resolver: options.crawlerResolver ?? systemResolver(config.crawlers.lookupTimeoutMs),
    timeoutMs: config.crawlers.lookupTimeoutMs,
    inFlight: config.crawlers.lookupsInFlight,
    perClient: config.crawlers.lookupsPerClient,
    windowMs: config.rateLimit.windowMs,
    maxClients: config.admission.maxClients,
    onOutcome: (crawler, outcome) => verified.inc({ crawler, outcome }),
  })
  app.decorate('crawlers', crawlers)
  app.decorateRequest('crawler', {
    getter(this: FastifyRequest) {
      return crawlers.crawlerOf(this.ip, this.headers['user-agent'], this.client)
    },
  })
}

export default fp(admission, { name: 'admission', dependencies: ['config', 'metrics', 'client'] })
