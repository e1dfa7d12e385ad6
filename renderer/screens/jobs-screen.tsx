import type { EntriesData, JobSummary } from '../../shared/content-types.ts'
import { formatSalary, pathOfUri } from '../components/format.ts'
import { SingleContent, singlePage } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

export function JobsScreen({ payload }: ScreenProps) {
  const page = singlePage(payload)
  const jobs = dataOf<EntriesData<JobSummary>>(payload, 'jobs')?.entries ?? []
  if (!page) return null
  return (
    <>
      <SingleContent page={page} />
      <div className="container">
        <section aria-labelledby="vacatures" className="section">
          <h2 id="vacatures">Vacatures</h2>
          <ul className="cards">
            {jobs.map((job) => (
              <li key={job.id} className="card">
                <h3>
                  <a href={pathOfUri(job.uri)}>{job.title}</a>
                </h3>
                <p className="meta">{[job.location, job.hours].filter(Boolean).join(' · ')}</p>
                {formatSalary(job.salaryMin, job.salaryMax) ? <p className="meta">{formatSalary(job.salaryMin, job.salaryMax)}</p> : null}
                {job.intro ? <p>{job.intro}</p> : null}
              </li>
            ))}
            <li className="card">
              <h3>
                <a href="/werken-bij/open-sollicitatie">Open sollicitatie</a>
              </h3>
              <p>Staat uw functie er niet bij? Stuur ons een open sollicitatie.</p>
            </li>
          </ul>
        </section>
      </div>
    </>
  )
}
