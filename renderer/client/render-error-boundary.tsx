import { Component, type ErrorInfo, type ReactNode } from 'react'

/** What a visitor reads when a page cannot be shown; the error itself stays in the console. */
export const RENDER_FAILED_MESSAGE = 'De pagina kon niet worden weergegeven.'

interface Props {
  /** A new value clears a caught error: the next page gets its own chance to render. */
  resetKey: unknown
  /** Shown instead of the children once they threw (the error itself is only logged). */
  fallback: () => ReactNode
  children: ReactNode
}

interface State {
  failed: boolean
  resetKey: unknown
}

/** Catches a page that throws while rendering, so the visitor gets the fallback instead of a blank page. */
export class RenderErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false, resetKey: this.props.resetKey }

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { failed: false, resetKey: props.resetKey }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('[render] the page could not be shown', error, info.componentStack)
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback() : this.props.children
  }
}
