import type { EntriesData, InsuranceSummary } from '../../shared/content-types.ts'
import { SingleContent, singlePage } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

const CATEGORIES = [
  { value: 'particulier', label: 'Voor particulieren' },
  { value: 'zakelijk', label: 'Voor ondernemers' },
] as const

export function InsurancesScreen({ payload }: ScreenProps) {
  const page = singlePage(payload)
  const insurances = dataOf<EntriesData<InsuranceSummary>>(payload, 'insurances')?.entries ?? []
  if (!page) return null
  return (
    <>
      <SingleContent page={page} />
      <div className="container">
        {CATEGORIES.map(({ value, label }) => (
          <section key={value} aria-labelledby={`verzekeringen-${value}`} className="section">
            <h2 id={`verzekeringen-${value}`}>{label}</h2>
            <ul className="cards">
              {insurances
                .filter((insurance) => insurance.category === value)
                .map((insurance) => (
                  <li key={insurance.id} id={insurance.slug} className="card">
                    <h3>{insurance.title}</h3>
                    {insurance.intro ? <p>{insurance.intro}</p> : null}
                  </li>
                ))}
            </ul>
          </section>
        ))}
        <p>
          Vragen over welke verzekering bij u past? <a href="/contact">Neem contact met ons op</a>.
        </p>
      </div>
    </>
  )
}
