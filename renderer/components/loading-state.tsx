import { createContext, useContext } from 'react'

export interface LoadingState {
  visible: boolean
  /** 0 to 100. */
  progress: number
  failed: boolean
}

export const IDLE_LOADING: LoadingState = { visible: false, progress: 0, failed: false }

/** What the loading bar shows; the server always renders the idle state. */
export const LoadingContext = createContext<LoadingState>(IDLE_LOADING)

export function useLoadingState(): LoadingState {
  return useContext(LoadingContext)
}
