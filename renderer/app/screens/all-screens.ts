import { ArticleScreen } from './article-screen.tsx'
import { ContactScreen } from './contact-screen.tsx'
import { EstablishmentsScreen } from './establishments-screen.tsx'
import { HomeScreen } from './home-screen.tsx'
import { InsuranceScreen } from './insurance-screen.tsx'
import { InsurancesScreen } from './insurances-screen.tsx'
import { JobScreen } from './job-screen.tsx'
import { JobsScreen } from './jobs-screen.tsx'
import { PageScreen } from './page-screen.tsx'
import type { ScreenRegistry } from './registry.ts'
import { ServiceScreen } from './service-screen.tsx'
import { ServicesScreen } from './services-screen.tsx'
import { TopicalScreen } from './topical-screen.tsx'

/** Every screen, bundled in: what the server renders with. */
export const ALL_SCREENS: Required<ScreenRegistry> = {
  home: HomeScreen,
  page: PageScreen,
  contact: ContactScreen,
  insurances: InsurancesScreen,
  insurance: InsuranceScreen,
  jobs: JobsScreen,
  job: JobScreen,
  topical: TopicalScreen,
  article: ArticleScreen,
  establishments: EstablishmentsScreen,
  services: ServicesScreen,
  service: ServiceScreen,
}
