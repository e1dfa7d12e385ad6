import type { ServiceSummary } from '../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, entriesOf } from './types.ts'

/** Overview of the services; links stay under the overview's own path. */
export function ServicesScreen({ payload }: ScreenProps) {
  return (
    <SingleWithEntries payload={payload}>
      <ul className="cards">
        {entriesOf<ServiceSummary>(payload, 'services').map((service) => (
          <Card key={service.id} title={service.title} href={`${payload.path}/${service.slug}`} intro={service.intro} headingLevel={2} />
        ))}
      </ul>
    </SingleWithEntries>
  )
}
