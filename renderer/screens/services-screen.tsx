import type { ServiceSummary } from '../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { pathOfUri } from '../components/format.ts'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, entriesOf } from './types.ts'

/** Overview of the services; each links to its own (Dutch) address, also from the English /services. */
export function ServicesScreen({ payload }: ScreenProps) {
  return (
    <SingleWithEntries payload={payload}>
      <ul className="cards">
        {entriesOf<ServiceSummary>(payload, 'services').map((service) => (
          <Card key={service.id} title={service.title} href={pathOfUri(service.uri)} intro={service.intro} headingLevel={2} />
        ))}
      </ul>
    </SingleWithEntries>
  )
}
