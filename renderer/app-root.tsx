import type { ComponentType } from 'react'
import { GENERIC_ERROR_HEADING, NOT_FOUND_FALLBACK_HEADING } from '../shared/constants.ts'
import type { EntryData, SiteSettingsData } from '../shared/content-types.ts'
import type { PagePayload } from '../shared/payload.ts'
import type { ScreenName } from '../shared/routes.ts'
import { ErrorPage } from './components/error-page.tsx'
import { Layout } from './components/layout.tsx'
import { FALLBACK_COMPANY_NAME, SiteContext } from './components/site-context.tsx'
import { ArticleScreen } from './screens/article-screen.tsx'
import { ContactScreen } from './screens/contact-screen.tsx'
import { EstablishmentsScreen } from './screens/establishments-screen.tsx'
import { HomeScreen } from './screens/home-screen.tsx'
import { InsurancesScreen } from './screens/insurances-screen.tsx'
import { JobScreen } from './screens/job-screen.tsx'
import { JobsScreen } from './screens/jobs-screen.tsx'
import { PageScreen } from './screens/page-screen.tsx'
import { ServiceScreen } from './screens/service-screen.tsx'
import { ServicesScreen } from './screens/services-screen.tsx'
import { TopicalScreen } from './screens/topical-screen.tsx'
import type { DeferredData, ScreenProps } from './screens/types.ts'

const SCREENS: Record<ScreenName, ComponentType<ScreenProps>> = {
  home: HomeScreen,
  page: PageScreen,
  contact: ContactScreen,
  insurances: InsurancesScreen,
  jobs: JobsScreen,
  job: JobScreen,
  topical: TopicalScreen,
  article: ArticleScreen,
  establishments: EstablishmentsScreen,
  services: ServicesScreen,
  service: ServiceScreen,
}

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
export function AppRoot({ payload, deferred }: { payload: PagePayload; deferred: DeferredData | null }) {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet ?? null
  const isError = payload.screen === 'error'
  const Screen = isError ? undefined : SCREENS[payload.screen as ScreenName]
  return (
    <SiteContext.Provider value={site}>
      <Layout currentPath={payload.path} error={isError}>
        {Screen ? <Screen payload={payload} deferred={deferred} /> : <ErrorPage payload={payload} />}
      </Layout>
    </SiteContext.Provider>
  )
}
