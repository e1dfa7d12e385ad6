import { LOADING_BAR } from '../../shared/constants.ts'
import { LOADING_BAR_ERROR_GRADIENT } from '../app/components/loading-bar.tsx'
import { IDLE_LOADING, type LoadingBarDriver, type LoadingState } from '../app/components/loading-state.tsx'

/** Estimated progress after `elapsed` ms of a navigation expected to take `duration` ms: approaches 100, never reaches it. */
export function estimatedProgress(duration: number, elapsed: number): number {
  const completion = (elapsed / duration) * 100
  return (2 / Math.PI) * 100 * Math.atan(completion / 50)
}

/** Shows a state on a bar's element (React leaves these properties alone: it renders them idle, always the same). */
function draw(element: HTMLElement, state: LoadingState): void {
  element.dataset.visible = state.visible ? 'true' : 'false'
  element.style.width = `${state.progress}%`
  element.style.opacity = state.visible ? '1' : '0'
  element.style.backgroundImage = state.failed ? LOADING_BAR_ERROR_GRADIENT : ''
}

/**
 * The loading bar's state machine: shown only after the throttle, progress
 * toward 100 over the estimated duration, 100 on finish, hidden after the
 * hide delay and reset after the reset delay; red on error. It draws on the
 * bar's element directly: a frame of progress costs no React render.
 */
export class LoadingIndicator implements LoadingBarDriver {
  private state: LoadingState = IDLE_LOADING
  private readonly bars = new Set<HTMLElement>()
  /** The one timer under way: the throttle, then (after finish) the hide delay, then the reset delay. */
  private timer: ReturnType<typeof setTimeout> | undefined
  private frame: number | undefined
  private done = true

  /** The bar's ref: a bar that mounts mid-navigation (the error page's, say) shows the state at once. */
  readonly attach = (element: HTMLElement | null): (() => void) | undefined => {
    if (!element) return undefined
    this.bars.add(element)
    draw(element, this.state)
    return () => this.bars.delete(element)
  }

  start(): void {
    this.clearAll()
    this.done = false
    this.set({ visible: false, progress: 0, failed: false })
    this.timer = setTimeout(() => {
      this.set({ ...this.state, visible: true })
      this.animate()
    }, LOADING_BAR.throttleMs)
  }

  finish({ error = false }: { error?: boolean } = {}): void {
    const wasShown = this.state.visible
    this.done = true
    this.clearAll()
    if (!wasShown && !error) {
      this.set(IDLE_LOADING)
      return
    }
    this.set({ visible: true, progress: 100, failed: error })
    this.timer = setTimeout(() => {
      this.set({ ...this.state, visible: false })
      this.timer = setTimeout(() => this.set({ ...IDLE_LOADING, failed: this.state.failed }), LOADING_BAR.resetDelayMs)
    }, LOADING_BAR.hideDelayMs)
  }

  private animate(): void {
    let startedAt: number | undefined
    const step = (timestamp: number): void => {
      if (this.done) return
      startedAt ??= timestamp
      const progress = Math.max(0, Math.min(100, estimatedProgress(LOADING_BAR.durationMs, timestamp - startedAt)))
      this.set({ ...this.state, progress })
      this.frame = requestAnimationFrame(step)
    }
    this.frame = requestAnimationFrame(step)
  }

  private set(state: LoadingState): void {
    this.state = state
    for (const bar of this.bars) draw(bar, state)
  }

  private clearAll(): void {
    clearTimeout(this.timer)
    if (this.frame !== undefined) cancelAnimationFrame(this.frame)
  }
}
