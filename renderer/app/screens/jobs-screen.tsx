import { JOBS_PER_PAGE } from '../../../shared/constants.ts'
import type { EntriesData, JobSummary } from '../../../shared/content-types.ts'
import { Card } from '../components/cms-content.tsx'
import { pathOfUri, publicationDate } from '../components/format.ts'
import { Pagination, pageCount } from '../components/pagination.tsx'
import { salaryText } from './job-screen.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

export function JobsScreen({ payload }: ScreenProps) {
  const list = dataOf<EntriesData<JobSummary>>(payload, 'jobs')
  const jobs = list?.entries ?? []
  return (
    <SingleWithEntries payload={payload}>
      <section aria-labelledby="vacatures" className="section">
        <h2 id="vacatures">Vacatures</h2>
        <ul className="cards">
          {jobs.map((job) => {
            const salary = salaryText(job)
            const posted = publicationDate(job)
            return (
              <Card key={job.id} title={job.title} href={pathOfUri(job.uri)} intro={job.intro}>
                <p className="meta">{[job.location, job.hours].filter(Boolean).join(' · ')}</p>
                {salary ? <p className="meta">{salary}</p> : null}
                {posted ? (
                  <p className="meta">
                    Geplaatst op <time dateTime={posted.iso}>{posted.text}</time>
                  </p>
                ) : null}
              </Card>
            )
          })}
          <Card title="Open sollicitatie" href="/werken-bij/open-sollicitatie" intro="Staat jouw functie er niet bij? Stuur ons een open sollicitatie." />
        </ul>
        <Pagination payload={payload} pages={pageCount(list?.entryCount, JOBS_PER_PAGE)} />
      </section>
    </SingleWithEntries>
  )
}
