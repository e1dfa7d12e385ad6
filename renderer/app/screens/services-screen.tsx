import { SERVICES_PER_PAGE } from '../../../shared/constants.ts'
import type { EntriesData, ServiceSummary } from '../../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { pathOfUri } from '../components/format.ts'
import { Pagination, pageCount } from '../components/pagination.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

/** Overview of the services; each links to its own (Dutch) address, also from the English /services. */
export function ServicesScreen({ payload }: ScreenProps) {
  const list = dataOf<EntriesData<ServiceSummary>>(payload, 'services')
  return (
    <SingleWithEntries payload={payload}>
      <ul className="cards">
        {(list?.entries ?? []).map((service) => (
          <Card key={service.id} title={service.title} href={pathOfUri(service.uri)} intro={service.intro} headingLevel={2} />
        ))}
      </ul>
      <Pagination payload={payload} pages={pageCount(list?.entryCount, SERVICES_PER_PAGE)} />
    </SingleWithEntries>
  )
}
