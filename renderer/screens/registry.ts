import type { ComponentType } from 'react'
import type { ScreenName } from '../../shared/routes.ts'
import type { ScreenProps } from './types.ts'

/** Which component renders each screen; the server has all, the browser loads them as chunks. */
export type ScreenRegistry = Partial<Record<ScreenName, ComponentType<ScreenProps>>>
