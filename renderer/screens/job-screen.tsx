import type { EntryData, Job } from '../../shared/content-types.ts'
import { formatDate, formatSalary } from '../components/format.ts'
import { RichText } from '../components/rich-text.tsx'
import { PageIntro } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

const SECTIONS = [
  ['whatYouDo', 'Wat ga je doen?'],
  ['whatYouBring', 'Wat breng je mee?'],
  ['whatWeOffer', 'Wat bieden wij?'],
  ['howToApply', 'Solliciteren'],
] as const

export function JobScreen({ payload }: ScreenProps) {
  const job = dataOf<EntryData<Job>>(payload, 'entry')?.entry
  if (!job) return null
  const salary = formatSalary(job.salaryMin, job.salaryMax)
  return (
    <article>
      <PageIntro title={job.title} intro={job.intro}>
        <dl className="job-facts">
          {job.location ? (
            <div>
              <dt>Standplaats</dt>
              <dd>{job.location}</dd>
            </div>
          ) : null}
          {job.hours ? (
            <div>
              <dt>Uren</dt>
              <dd>{job.hours}</dd>
            </div>
          ) : null}
          {salary ? (
            <div>
              <dt>Salaris</dt>
              <dd>{salary}</dd>
            </div>
          ) : null}
          {job.employmentType ? (
            <div>
              <dt>Dienstverband</dt>
              <dd>{job.employmentType}</dd>
            </div>
          ) : null}
          {job.validThrough ? (
            <div>
              <dt>Reageren vóór</dt>
              <dd>{formatDate(job.validThrough)}</dd>
            </div>
          ) : null}
        </dl>
      </PageIntro>
      <div className="container">
        {SECTIONS.map(([field, heading]) =>
          job[field] ? (
            <section key={field} className="section" aria-labelledby={`vacature-${field}`}>
              <h2 id={`vacature-${field}`}>{heading}</h2>
              <RichText html={job[field]} />
            </section>
          ) : null,
        )}
        <p>
          <a href="/werken-bij">Alle vacatures</a>
        </p>
      </div>
    </article>
  )
}
