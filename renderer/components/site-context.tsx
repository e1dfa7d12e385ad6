import { createContext, useContext } from 'react'
import type { SiteSettings } from '../../shared/content-types.ts'

export const FALLBACK_COMPANY_NAME = 'Havenborg Assurantiën'

export const SiteContext = createContext<SiteSettings | null>(null)

export function useSite(): SiteSettings | null {
  return useContext(SiteContext)
}
