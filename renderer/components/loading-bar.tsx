import { LOADING_BAR } from '../../shared/constants.ts'
import { useLoadingState } from './loading-state.tsx'

/** Red gradient of a navigation that failed. */
export const LOADING_BAR_ERROR_GRADIENT = 'repeating-linear-gradient(to right, #f87171 0%, #ef4444 100%)'

/**
 * The 3 px bar at the top of every page: hidden until a client navigation
 * outlasts the throttle; the error page shows it in its own colour.
 */
export function LoadingBar({ error = false }: { error?: boolean }) {
  const state = useLoadingState()
  const colour = error ? LOADING_BAR.errorPageColour : LOADING_BAR.colour
  return (
    <div
      className={error ? 'loading-bar loading-bar--error' : 'loading-bar'}
      aria-hidden="true"
      data-visible={state.visible ? 'true' : 'false'}
      style={{
        height: `${LOADING_BAR.heightPx}px`,
        backgroundColor: colour,
        ...(state.failed ? { backgroundImage: LOADING_BAR_ERROR_GRADIENT } : {}),
        width: `${state.progress}%`,
        opacity: state.visible ? 1 : 0,
      }}
    />
  )
}
