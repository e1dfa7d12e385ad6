import { type RouteObject, matchRoutes, useRoutes } from 'react-router-dom'
import { GENERIC_ERROR_HEADING, NOT_FOUND_FALLBACK_HEADING, PRODUCT_PLACEHOLDER } from '../../shared/constants.ts'
import type { EntryData, SiteSettingsData } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { PAGE_QUERY_PARAM, ROUTE_TEMPLATES, type ScreenName } from '../../shared/routes.ts'
import { Breadcrumbs } from './components/breadcrumbs.tsx'
import { breadcrumbsOf } from './structured-data.ts'
import { ErrorPage } from './components/error-page.tsx'
import { Layout } from './components/layout.tsx'
import { PageHead } from './components/page-head.tsx'
import { FALLBACK_COMPANY_NAME, type LinkComponents, LinkContext, SiteContext } from './components/site-context.tsx'
import type { ScreenRegistry } from './screens/registry.ts'
import type { DeferredData } from './screens/types.ts'
import type { PageMeta } from './page-meta.ts'

interface TitledEntry {
  title: string
  intro?: string | null
  seoDescription?: string | null
  image?: { url: string; shareUrl?: string | null }[]
}

/** Search results and browser tabs cut titles at about 60 to 70 characters. */
export const MAX_TITLE_LENGTH = 65

/** The home page's title: the brand, and its tagline when both fit. */
function withinTitleLength(title: string, suffix: string | null | undefined): string {
  const full = suffix ? `${title} | ${suffix}` : title
  return full.length <= MAX_TITLE_LENGTH ? full : title
}

/** A page's title with the brand after it: a title too long is cut (at a word, with an ellipsis), never the brand. */
export function brandedTitle(title: string, brand: string): string {
  const room = MAX_TITLE_LENGTH - brand.length - 4
  return `${title.length <= room + 1 ? title : `${title.slice(0, room).replace(/[\s,;:–-]*\S*$/, '') || title.slice(0, room)}…`} | ${brand}`
}

/** Title and description of a page, from its own entry. */
export function pageMeta(payload: PagePayload): PageMeta {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet
  const company = site?.companyName ?? FALLBACK_COMPANY_NAME
  if (payload.screen === 'error') {
    const heading = payload.status === 404 ? payload.notFound?.title || NOT_FOUND_FALLBACK_HEADING : GENERIC_ERROR_HEADING
    return { title: brandedTitle(heading, company), heading, description: undefined, noindex: true, canonicalUrl: undefined, image: undefined }
  }
  const entry =
    (payload.data.page as EntryData<TitledEntry> | undefined)?.entry ?? (payload.data.entry as EntryData<TitledEntry> | undefined)?.entry
  const title = payload.screen === 'home' ? withinTitleLength(company, site?.tagline) : entry ? brandedTitle(entry.title, company) : company
  const canonicalUrl = payload.canonicalPath
    ? `${payload.siteUrl}${payload.canonicalPath}${payload.page > 1 ? `?${PAGE_QUERY_PARAM}=${payload.page}` : ''}`
    : undefined
  const shared = entry?.image?.[0]
  const imagePath = shared?.shareUrl ?? shared?.url ?? DEFAULT_SHARE_IMAGE
  return {
    title,
    heading: entry?.title,
    description: entry?.seoDescription ?? entry?.intro ?? undefined,
    noindex: payload.preview,
    canonicalUrl,
    // Craft's asset URLs are absolute (the CMS's or a CDN's host): kept as they are.
    image: /^https?:\/\//.test(imagePath) ? imagePath : `${payload.siteUrl}${imagePath}`,
  }
}

/** Shown when a page is shared and has no image of its own. */
export const DEFAULT_SHARE_IMAGE = '/images/delen-havenborg.png'

/** The page inside its layout: the screen of the payload, or the error page; and its head (title, meta, JSON-LD). */
export interface AppRootProps {
  payload: PagePayload
  deferred: DeferredData | null
  screens: ScreenRegistry
}

export function AppRoot({ payload, deferred, screens }: AppRootProps) {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet ?? null
  const isError = payload.screen === 'error'
  const Screen = payload.screen === 'error' ? undefined : screens[payload.screen]
  const meta = pageMeta(payload)
  return (
    <SiteContext.Provider value={site}>
      <Layout currentPath={payload.path} error={isError}>
        <Breadcrumbs crumbs={breadcrumbsOf(payload, meta.heading)} />
        {Screen ? <Screen payload={payload} deferred={deferred} /> : <ErrorPage payload={payload} />}
      </Layout>
      {/* Its tags go to the document's head, on the server and after every client navigation alike; after the layout, so the visible page streams first. */}
      <PageHead payload={payload} meta={meta} {...(Screen?.jsonLd ? { screenJsonLd: Screen.jsonLd } : {})} />
    </SiteContext.Provider>
  )
}

/**
 * The route table of shared/routes.ts as react-router routes, each path of
 * each route once; a path segment that holds the site handle
 * (`/actueel/ons-nieuwe-merk-{product}`) is a `:slug`. The catch-all is every
 * path the gateway answers without a route: its 404 page.
 */
/** The screen of each route path, for `screenOfPath` (reversed: the first route that names a path is the one kept). */
const SCREEN_OF_ROUTE = new Map<string, ScreenName>(
  ROUTE_TEMPLATES.flatMap((route) =>
    route.paths.map((path): [string, ScreenName] => [
      path
        .split('/')
        .map((segment) => (segment.includes(PRODUCT_PLACEHOLDER) ? ':slug' : segment))
        .join('/'),
      route.screen,
    ]),
  ).reverse(),
)

export const SITE_ROUTES: readonly RouteObject[] = [...[...SCREEN_OF_ROUTE.keys()].reverse(), '*'].map((path) => ({ path }))

/** Paths whose route is remembered; past it the memory starts again (paths with slugs are endless). */
const MAX_REMEMBERED_PATHS = 1000
const routeOfPath = new Map<string, RouteObject>()

/**
 * The route of `pathname`, matched against the whole table once per path:
 * react-router's declarative `<Routes>` ranks the routes and compiles a
 * pattern for each of them on every render (about 40 here, some 200 µs on
 * the server, as much as the render of a page), so `<Routes>` is handed the
 * route that matches and matches only that one.
 */
function routeOf(pathname: string): RouteObject {
  let route = routeOfPath.get(pathname)
  if (route === undefined) {
    route = matchRoutes(SITE_ROUTES as RouteObject[], pathname)?.[0]?.route ?? { path: '*' }
    if (routeOfPath.size >= MAX_REMEMBERED_PATHS) routeOfPath.clear()
    routeOfPath.set(pathname, route)
  }
  return route
}

/**
 * The screen a path shows, known before its payload arrives, so that a client
 * navigation fetches the screen's code with its data (client/screen-preloads.ts);
 * undefined where no route matches (the 404 page).
 */
export const screenOfPath = (pathname: string): ScreenName | undefined => SCREEN_OF_ROUTE.get(routeOf(pathname).path ?? '')

export interface SiteRoutesProps extends AppRootProps {
  /** What draws the links: react-router's in the browser, their markup on the server (components/router-links.tsx). */
  links: LinkComponents
}

/**
 * The page of the payload, as the element of its route: react-router matches
 * the payload's own path (not the address bar's, which runs ahead of the page
 * on screen while the next payload loads), so the links of the page, and
 * `useLocation` below it, see the location of the page they are on. The same
 * on the server (inside a StaticRouter) and in the browser (a BrowserRouter).
 */
export function SiteRoutes({ links, ...props }: SiteRoutesProps) {
  const route = routeOf(props.payload.path)
  const page = useRoutes([{ ...route, element: <AppRoot {...props} /> }], props.payload.fullPath)
  return <LinkContext.Provider value={links}>{page}</LinkContext.Provider>
}
