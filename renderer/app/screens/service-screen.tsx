import type { EntryData, Service } from '../../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { PageIntro } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

export function ServiceScreen({ payload }: ScreenProps) {
  const service = dataOf<EntryData<Service>>(payload, 'entry')?.entry
  if (!service) return null
  const overview = payload.path.slice(0, payload.path.lastIndexOf('/'))
  return (
    <article>
      <PageIntro title={service.title} intro={service.intro} entry={service} />
      <div className="container">
        <RichText html={service.text} />
        <p>
          <a href={overview}>Terug naar het overzicht</a>
        </p>
      </div>
    </article>
  )
}
