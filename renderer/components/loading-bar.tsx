import { LOADING_BAR } from '../../shared/constants.ts'

/**
 * The 3 px bar at the top of every page. It is hidden until a client
 * navigation takes longer than the throttle; the error page shows it in its
 * own colour.
 */
export function LoadingBar({ error = false }: { error?: boolean }) {
  return (
    <div
      className={error ? 'loading-bar loading-bar--error' : 'loading-bar'}
      aria-hidden="true"
      style={{ height: `${LOADING_BAR.heightPx}px`, backgroundColor: error ? LOADING_BAR.errorPageColour : LOADING_BAR.colour }}
    />
  )
}
