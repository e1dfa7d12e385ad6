import type { ScreenName } from '../../shared/routes.ts'
import type { ScreenComponent, ScreenRegistry } from '../app/screens/registry.ts'

export type ScreenLoader = Record<ScreenName, () => Promise<ScreenComponent>>

/** Each screen as its own chunk: the first load carries only the code of the page it shows. */
export const SCREEN_CHUNKS: ScreenLoader = {
  home: () => import('../app/screens/home-screen.tsx').then((m) => m.HomeScreen),
  page: () => import('../app/screens/page-screen.tsx').then((m) => m.PageScreen),
  contact: () => import('../app/screens/contact-screen.tsx').then((m) => m.ContactScreen),
  insurances: () => import('../app/screens/insurances-screen.tsx').then((m) => m.InsurancesScreen),
  insurance: () => import('../app/screens/insurance-screen.tsx').then((m) => m.InsuranceScreen),
  jobs: () => import('../app/screens/jobs-screen.tsx').then((m) => m.JobsScreen),
  job: () => import('../app/screens/job-screen.tsx').then((m) => m.JobScreen),
  topical: () => import('../app/screens/topical-screen.tsx').then((m) => m.TopicalScreen),
  article: () => import('../app/screens/article-screen.tsx').then((m) => m.ArticleScreen),
  establishments: () => import('../app/screens/establishments-screen.tsx').then((m) => m.EstablishmentsScreen),
  services: () => import('../app/screens/services-screen.tsx').then((m) => m.ServicesScreen),
  service: () => import('../app/screens/service-screen.tsx').then((m) => m.ServiceScreen),
}

export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError'
  readonly chunk = true
}

/** Puts a screen's component into the registry; a chunk that fails to load is a ChunkLoadError. */
export async function loadScreen(loader: ScreenLoader, registry: ScreenRegistry, screen: ScreenName): Promise<void> {
  if (registry[screen]) return
  try {
    registry[screen] = await loader[screen]()
  } catch (error) {
    throw new ChunkLoadError(`could not load the code of screen ${screen}: ${(error as Error).message}`)
  }
}
