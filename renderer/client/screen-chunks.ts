import type { ScreenName } from '../../shared/routes.ts'
import type { ScreenComponent, ScreenRegistry } from '../screens/registry.ts'

export type ScreenLoader = Record<ScreenName, () => Promise<ScreenComponent>>

/** Each screen as its own chunk: the first load carries only the code of the page it shows. */
export const SCREEN_CHUNKS: ScreenLoader = {
  home: () => import('../screens/home-screen.tsx').then((m) => m.HomeScreen),
  page: () => import('../screens/page-screen.tsx').then((m) => m.PageScreen),
  contact: () => import('../screens/contact-screen.tsx').then((m) => m.ContactScreen),
  insurances: () => import('../screens/insurances-screen.tsx').then((m) => m.InsurancesScreen),
  insurance: () => import('../screens/insurance-screen.tsx').then((m) => m.InsuranceScreen),
  jobs: () => import('../screens/jobs-screen.tsx').then((m) => m.JobsScreen),
  job: () => import('../screens/job-screen.tsx').then((m) => m.JobScreen),
  topical: () => import('../screens/topical-screen.tsx').then((m) => m.TopicalScreen),
  article: () => import('../screens/article-screen.tsx').then((m) => m.ArticleScreen),
  establishments: () => import('../screens/establishments-screen.tsx').then((m) => m.EstablishmentsScreen),
  services: () => import('../screens/services-screen.tsx').then((m) => m.ServicesScreen),
  service: () => import('../screens/service-screen.tsx').then((m) => m.ServiceScreen),
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
