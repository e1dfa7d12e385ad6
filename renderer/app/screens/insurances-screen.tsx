import { INSURANCES_PER_PAGE } from '../../../shared/constants.ts'
import type { EntriesData, InsuranceSummary, Insurer } from '../../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { pathOfUri } from '../components/format.ts'
import { Pagination, pageCount } from '../components/pagination.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, dataOf, entriesOf } from './types.ts'

const CATEGORIES = [
  { value: 'particulier', label: 'Voor particulieren' },
  { value: 'zakelijk', label: 'Voor ondernemers' },
] as const

export function InsurancesScreen({ payload }: ScreenProps) {
  const list = dataOf<EntriesData<InsuranceSummary>>(payload, 'insurances')
  const insurances = list?.entries ?? []
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
      <Pagination payload={payload} pages={pageCount(list?.entryCount, INSURANCES_PER_PAGE)} />
      <InsurerList insurers={entriesOf<Insurer>(payload, 'insurers')} />
      <p>
        Vragen over welke verzekering bij u past? <a href="/contact">Neem contact met ons op</a>.
      </p>
    </SingleWithEntries>
  )
}

/** The insurers the office works with (the `insurers` channel), each to its own website. */
function InsurerList({ insurers }: { insurers: readonly Insurer[] }) {
  if (insurers.length === 0) return null
  return (
    <section aria-labelledby="verzekeraars" className="section">
      <h2 id="verzekeraars">Verzekeraars waarmee wij werken</h2>
      <p>Wij zijn aan geen enkele verzekeraar gebonden. Wij werken onder meer met:</p>
      <ul className="insurer-list">
        {insurers.map((insurer) => (
          <li key={insurer.id}>{insurer.website ? <a href={insurer.website}>{insurer.title}</a> : insurer.title}</li>
        ))}
      </ul>
    </section>
  )
}
