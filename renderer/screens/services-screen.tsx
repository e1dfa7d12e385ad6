import type { EntriesData, ServiceSummary } from '../../shared/content-types.ts'
import { SingleContent, singlePage } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

/** Overview of the services; links stay under the overview's own path. */
export function ServicesScreen({ payload }: ScreenProps) {
  const page = singlePage(payload)
  const services = dataOf<EntriesData<ServiceSummary>>(payload, 'services')?.entries ?? []
  if (!page) return null
  return (
    <>
      <SingleContent page={page} />
      <div className="container">
        <ul className="cards">
          {services.map((service) => (
            <li key={service.id} className="card">
              <h2>
                <a href={`${payload.path}/${service.slug}`}>{service.title}</a>
              </h2>
              {service.intro ? <p>{service.intro}</p> : null}
            </li>
          ))}
        </ul>
      </div>
    </>
  )
}
