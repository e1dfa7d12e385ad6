import type { GiveUp } from './render-exchange.ts'

/**
 * A render that had no answer within RENDER_STALL_MS and was given up: it
 * goes once to another renderer, or the stored page answers. Its code is
 * the renderers' own; the visitor sees the stored page or the 503 page.
 */
export class RenderStalledError extends Error {
  override name = 'RenderStalledError'
  readonly code = 'RENDER_STALLED'
}

/** The watch over one render request: ended once its answer came (or it failed), before the bound or after. */
export interface StallWatch {
  answered(): void
}

const UNWATCHED: StallWatch = { answered: () => undefined }

/**
 * Watches one render request for an answer within `stallMs`. Past it,
 * `stalled` is told (the renderer is then suspect) and says whether the
 * render is given up: only when something else can answer (another
 * renderer, or a stored page), else it is waited on as before. A given up
 * render's request is aborted (`giveUp`), so it costs the renderer nothing
 * more than what it did already. Undefined `stallMs`: no bound.
 */
export function watchStall(stallMs: number | undefined, giveUp: GiveUp, stalled: () => boolean): StallWatch {
  if (stallMs === undefined) return UNWATCHED
  let done = false
  const timer = setTimeout(() => {
    if (done) return
    if (stalled()) giveUp.give(new RenderStalledError(`no answer from the renderer within ${stallMs} ms`))
  }, stallMs)
  // A render's own request keeps the process up while it is waited on; this timer never does.
  timer.unref()
  return {
    answered() {
      done = true
      clearTimeout(timer)
    },
  }
}
