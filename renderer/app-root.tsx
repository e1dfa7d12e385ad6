import { GENERIC_ERROR_HEADING, NOT_FOUND_FALLBACK_HEADING } from '../shared/constants.ts'
import type { EntryData, SiteSettingsData } from '../shared/content-types.ts'
import type { PagePayload } from '../shared/payload.ts'
import { ErrorPage } from './components/error-page.tsx'
import { Layout } from './components/layout.tsx'
import { FALLBACK_COMPANY_NAME, SiteContext } from './components/site-context.tsx'
import type { ScreenRegistry } from './screens/registry.ts'
import type { DeferredData } from './screens/types.ts'

export interface PageMeta {
  title: string
  description: string | undefined
  noindex: boolean
}

interface TitledEntry {
  title: string
  intro?: string | null
  seoDescription?: string | null
}

/** Title and description of a page, from its own entry. */
export function pageMeta(payload: PagePayload): PageMeta {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet
  const company = site?.companyName ?? FALLBACK_COMPANY_NAME
  if (payload.screen === 'error') {
    const heading = payload.status === 404 ? payload.notFound?.title || NOT_FOUND_FALLBACK_HEADING : GENERIC_ERROR_HEADING
    return { title: `${heading} | ${company}`, description: undefined, noindex: true }
  }
  const entry =
    (payload.data.page as EntryData<TitledEntry> | undefined)?.entry ?? (payload.data.entry as EntryData<TitledEntry> | undefined)?.entry
  const title = payload.screen === 'home' ? `${company}${site?.tagline ? ` | ${site.tagline}` : ''}` : `${entry?.title ?? company} | ${company}`
  return { title, description: entry?.seoDescription ?? entry?.intro ?? undefined, noindex: payload.preview }
}

/** The page inside its layout: the screen of the payload, or the error page. */
export interface AppRootProps {
  payload: PagePayload
  deferred: DeferredData | null
  screens: ScreenRegistry
}

export function AppRoot({ payload, deferred, screens }: AppRootProps) {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet ?? null
  const isError = payload.screen === 'error'
  const Screen = payload.screen === 'error' ? undefined : screens[payload.screen]
  return (
    <SiteContext.Provider value={site}>
      <Layout currentPath={payload.path} error={isError}>
        {Screen ? <Screen payload={payload} deferred={deferred} /> : <ErrorPage payload={payload} />}
      </Layout>
    </SiteContext.Provider>
  )
}
