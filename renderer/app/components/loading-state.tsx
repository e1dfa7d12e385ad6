import { createContext, useContext } from 'react'

export interface LoadingState {
  visible: boolean
  /** 0 to 100. */
  progress: number
  failed: boolean
}

export const IDLE_LOADING: LoadingState = { visible: false, progress: 0, failed: false }

/**
 * What animates the loading bar: it draws on the bar's element itself, every
 * frame, so a navigation's progress never re-renders the page. The server
 * (and a render without one) shows the idle bar.
 */
export interface LoadingBarDriver {
  /** A ref callback for the bar's element; returns its cleanup. */
  attach(element: HTMLElement | null): (() => void) | undefined
}

export const LoadingContext = createContext<LoadingBarDriver | null>(null)

export function useLoadingBarDriver(): LoadingBarDriver | null {
  return useContext(LoadingContext)
}
