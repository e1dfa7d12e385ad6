import { LOADING_BAR } from '../../../shared/constants.ts'
import { IDLE_LOADING, useLoadingBarDriver } from './loading-state.tsx'

/** Red gradient of a navigation that failed. */
export const LOADING_BAR_ERROR_GRADIENT = 'repeating-linear-gradient(to right, #f87171 0%, #ef4444 100%)'

/**
 * The 3 px bar at the top of every page: hidden until a client navigation
 * outlasts the throttle; the error page shows it in its own colour. React
 * renders it idle and never changes its progress: the client's loading
 * indicator does, on the element (renderer/client/loading-indicator.ts).
 */
export function LoadingBar({ error = false }: { error?: boolean }) {
  const driver = useLoadingBarDriver()
  const colour = error ? LOADING_BAR.errorPageColour : LOADING_BAR.colour
  return (
    <div
      className={error ? 'loading-bar loading-bar--error' : 'loading-bar'}
      aria-hidden="true"
      data-visible="false"
      ref={driver?.attach}
      style={{
        height: `${LOADING_BAR.heightPx}px`,
        backgroundColor: colour,
        width: `${IDLE_LOADING.progress}%`,
        opacity: 0,
      }}
    />
  )
}
