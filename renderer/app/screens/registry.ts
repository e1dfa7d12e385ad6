import type { ComponentType } from 'react'
import type { ScreenName } from '../../../shared/routes.ts'
import type { ScreenJsonLd } from '../structured-data.ts'
import type { ScreenProps } from './types.ts'

/** A screen's component; `jsonLd`, where it has one, gives the screen's own structured data (structured-data.ts). */
export type ScreenComponent = ComponentType<ScreenProps> & { jsonLd?: ScreenJsonLd }

/** Which component renders each screen; the server has all, the browser loads them as chunks. */
export type ScreenRegistry = Partial<Record<ScreenName, ScreenComponent>>
