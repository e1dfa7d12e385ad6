import type { InsuranceSummary } from '../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { pathOfUri } from '../components/format.ts'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, entriesOf } from './types.ts'

const CATEGORIES = [
  { value: 'particulier', label: 'Voor particulieren' },
  { value: 'zakelijk', label: 'Voor ondernemers' },
] as const

export function InsurancesScreen({ payload }: ScreenProps) {
  const insurances = entriesOf<InsuranceSummary>(payload, 'insurances')
  return (
    <SingleWithEntries payload={payload}>
      {CATEGORIES.map(({ value, label }) => (
        <section key={value} aria-labelledby={`verzekeringen-${value}`} className="section">
          <h2 id={`verzekeringen-${value}`}>{label}</h2>
          <ul className="cards">
            {insurances
              .filter((insurance) => insurance.category === value)
              .map((insurance) => (
                <Card key={insurance.id} id={insurance.slug} title={insurance.title} href={pathOfUri(insurance.uri)} intro={insurance.intro} />
              ))}
          </ul>
        </section>
      ))}
      <p>
        Vragen over welke verzekering bij u past? <a href="/contact">Neem contact met ons op</a>.
      </p>
    </SingleWithEntries>
  )
}
