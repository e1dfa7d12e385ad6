import { Component, type ErrorInfo, type ReactNode } from 'react'

/** What a visitor reads when a page cannot be shown; the error itself stays in the console. */
export const RENDER_FAILED_MESSAGE = 'De pagina kon niet worden weergegeven.'

interface Props {
  /** A new value clears a caught error: the next page gets its own chance to render. */
  resetKey: unknown
  fallback: (error: unknown) => ReactNode
  children: ReactNode
}

interface State {
  error: unknown
  failed: boolean
  resetKey: unknown
}

/** Catches a page that throws while rendering, so the visitor gets the fallback instead of a blank page. */
export class RenderErrorBoundary extends Component<Props, State> {
  override state: State = { error: undefined, failed: false, resetKey: this.props.resetKey }

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error, failed: true }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: undefined, failed: false, resetKey: props.resetKey }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('[render] the page could not be shown', error, info.componentStack)
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback(this.state.error) : this.props.children
  }
}
