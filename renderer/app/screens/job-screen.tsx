import type { EntryData, Job, JobSummary } from '../../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { type Description, DescriptionList } from '../components/contact-details.tsx'
import { formatDate, formatSalary, publicationDate } from '../components/format.ts'
import { PageIntro } from './common.tsx'
import type { ScreenJsonLd } from '../structured-data.ts'
import { type ScreenProps, dataOf } from './types.ts'

const SECTIONS = [
  ['whatYouDo', 'Wat ga je doen?'],
  ['whatYouBring', 'Wat breng je mee?'],
  ['whatWeOffer', 'Wat bieden wij?'],
  ['howToApply', 'Solliciteren'],
] as const

/**
 * The monthly salary with the hours per week it is for, when the CMS gives
 * them (a part-time job's salary is for its own hours). Here, not in
 * format.ts, which every first visit loads.
 */
export function salaryText(job: JobSummary): string | undefined {
  const salary = formatSalary(job.salaryMin, job.salaryMax)
  return salary && job.salaryHours !== null ? `${salary} bij ${job.salaryHours} uur per week` : salary
}

/**
 * A vacancy's text with a subject naming the vacancy on each mail link that
 * has none ("Sollicitatie: Allround schadebehandelaar"), as an insurance's
 * mail link names the insurance; a subject the editor wrote stays.
 */
export function withMailSubject(html: string | null, vacancy: string): string | null {
  if (!html || !html.includes('mailto:')) return html
  const subject = encodeURIComponent(`Sollicitatie: ${vacancy}`)
  return html.replace(/href="mailto:([^"?#]*)"/g, (_link, address: string) => `href="mailto:${address}?subject=${subject}"`)
}

/** The facts of a job that it has, in this order. */
function jobFacts(job: Job): Description[] {
  const facts = [
    { term: 'Standplaats', details: job.location },
    { term: 'Uren', details: job.hours },
    { term: 'Salaris', details: salaryText(job) },
    { term: 'Dienstverband', details: job.employmentType },
    { term: 'Geplaatst op', details: publicationDate(job)?.text },
    { term: 'Reageren vóór', details: job.validThrough && formatDate(job.validThrough) },
  ]
  return facts.filter((fact) => fact.details)
}

export function JobScreen({ payload }: ScreenProps) {
  const job = dataOf<EntryData<Job>>(payload, 'entry')?.entry
  if (!job) return null
  return (
    <article>
      <PageIntro title={job.title} intro={job.intro} entry={job}>
        <DescriptionList className="job-facts" items={jobFacts(job)} />
        {/* How to apply, near the top: the section itself is further down. */}
        {job.howToApply ? (
          <p>
            <a className="button" href="#vacature-howToApply">
              Zo solliciteer je
            </a>
          </p>
        ) : null}
      </PageIntro>
      <div className="container">
        {SECTIONS.map(([field, heading]) =>
          job[field] ? (
            <section key={field} className="section" aria-labelledby={`vacature-${field}`}>
              <h2 id={`vacature-${field}`}>{heading}</h2>
              <RichText html={withMailSubject(job[field], job.title)} />
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

/** Text without its tags. A tag is read up to the next < or >: a run of < in a plain intro costs one step each, not a scan to the end of the text each. */
const plain = (html: string | null | undefined): string => (html ?? '').replace(/<[^<>]+>/g, ' ').replace(/\s+/g, ' ').trim()

/** The job's posting in the page's structured data (structured-data.ts). */
JobScreen.jsonLd = ((payload, site, siteUrl, url) => {
  const job = dataOf<EntryData<Job>>(payload, 'entry')?.entry
  if (!job) return []
  return [
    {
      '@type': 'JobPosting',
      title: job.title,
      description: [job.intro, job.whatYouDo, job.whatYouBring, job.whatWeOffer].filter(Boolean).map((part) => `<p>${plain(part)}</p>`).join(''),
      // A preview's draft or scheduled job was never posted: no date it may get (components/draft-marker.tsx).
      ...(publicationDate(job) ? { datePosted: job.postDate } : {}),
      ...(job.validThrough ? { validThrough: job.validThrough } : {}),
      employmentType: /^(3[2-9]|40)/.test(job.hours ?? '') ? 'FULL_TIME' : 'PART_TIME',
      hiringOrganization: { '@type': 'Organization', name: site.companyName, sameAs: `${siteUrl}/` },
      jobLocation: { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: job.location, addressCountry: 'NL' } },
      ...(job.salaryMin !== null || job.salaryMax !== null
        ? {
            baseSalary: {
              '@type': 'MonetaryAmount',
              currency: 'EUR',
              value: { '@type': 'QuantitativeValue', minValue: job.salaryMin, maxValue: job.salaryMax, unitText: 'MONTH' },
            },
          }
        : {}),
      url,
    },
  ]
}) satisfies ScreenJsonLd
