import type { EntryData, Insurance, OpeningHours } from '../../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { phoneText, telHref } from '../components/format.ts'
import { useSite } from '../components/site-context.tsx'
import { PageIntro } from './common.tsx'
import type { ScreenJsonLd } from '../structured-data.ts'
import { type ScreenProps, dataOf } from './types.ts'

/** The e-mail a visitor starts from an insurance's page: its subject names the insurance. */
export function adviceMailto(email: string, insurance: string): string {
  return `mailto:${email}?subject=${encodeURIComponent(`Vraag over de ${insurance.toLowerCase()}`)}`
}

/** A weekday's name as Dutch writes it short ("Maandag" → "ma"): its first two letters. */
const shortDay = (day: string): string => day.trim().slice(0, 2).toLowerCase()

/**
 * The opening hours in one line, for beside a phone number: days in a row with
 * the same hours joined ("ma t/m vr 08:30 – 17:00, za 09:00 – 12:00"); days
 * that say they are closed (no digit in their hours) left out. Empty when no
 * row has hours. Here, not in components/contact-details.tsx: only this
 * screen's chunk carries it, not every page's first load.
 */
export function openingHoursSummary(rows: readonly OpeningHours[] | null): string {
  const runs: { from: string; to: string; hours: string }[] = []
  for (const row of rows ?? []) {
    const last = runs.at(-1)
    if (last && last.hours === row.hours) last.to = row.day
    else runs.push({ from: row.day, to: row.day, hours: row.hours })
  }
  return runs
    .filter((run) => /\d/.test(run.hours))
    .map((run) => `${shortDay(run.from)}${run.to === run.from ? '' : ` t/m ${shortDay(run.to)}`} ${run.hours}`)
    .join(', ')
}

/**
 * One insurance as a visitor compares it: what is covered and what is not,
 * each under its own heading, the eigen risico, the insurers it is placed
 * with, then what to do next (call in office hours, e-mail about this
 * insurance, or ask for advice).
 */
export function InsuranceScreen({ payload }: ScreenProps) {
  const insurance = dataOf<EntryData<Insurance>>(payload, 'entry')?.entry
  const site = useSite()
  if (!insurance) return null
  // When the general number answers: the site's opening hours (the damage line is 24/7, in the bar).
  const hours = openingHoursSummary(site?.openingHours ?? null)
  const overview = payload.path.slice(0, payload.path.lastIndexOf('/'))
  const email = insurance.adviceEmail || site?.email
  const insurers = insurance.insurers ?? []
  return (
    <article>
      <PageIntro title={insurance.title} intro={insurance.intro} entry={insurance} />
      <div className="container">
        {insurance.coverage ? (
          <section aria-labelledby="gedekt">
            <h2 id="gedekt">Wat is gedekt?</h2>
            <RichText html={insurance.coverage} />
          </section>
        ) : null}
        {insurance.exclusions ? (
          <section aria-labelledby="niet-gedekt">
            <h2 id="niet-gedekt">Wat is niet gedekt?</h2>
            <RichText html={insurance.exclusions} />
          </section>
        ) : null}
        {insurance.deductible ? (
          <section aria-labelledby="eigen-risico">
            <h2 id="eigen-risico">Eigen risico</h2>
            <p>{insurance.deductible}</p>
          </section>
        ) : null}
        <RichText html={insurance.text} />
        {insurers.length > 0 ? (
          <section aria-labelledby="verzekeraars">
            <h2 id="verzekeraars">Bij welke verzekeraars?</h2>
            <p>Wij brengen deze verzekering meestal onder bij {listText(insurers.map((insurer) => insurer.title))}. Welke het best bij u past, hangt af van uw situatie.</p>
          </section>
        ) : null}
        <section className="cta next-step" aria-labelledby="volgende-stap">
          <h2 id="volgende-stap">Advies over uw {insurance.title.toLowerCase()}?</h2>
          <p>
            Een adviseur kijkt met u naar de dekking die bij u past, vergelijkt voor u de verzekeraars en vertelt vooraf wat het advies kost.
          </p>
          <ul className="next-step__actions">
            {site ? (
              <li className="next-step__call">
                <a className="button" href={telHref(site.phone)} aria-describedby={hours ? 'bel-bereikbaar' : undefined}>
                  {`Bel\u00a0${phoneText(site.phone)}`}
                </a>
                {hours ? (
                  <span id="bel-bereikbaar" className="meta">
                    Bereikbaar {hours}
                  </span>
                ) : null}
              </li>
            ) : null}
            {email ? (
              <li>
                <a className="button button--secondary" href={adviceMailto(email, insurance.title)}>
                  Mail uw vraag
                </a>
              </li>
            ) : null}
            <li>
              <a href="/contact">Alle manieren om contact op te nemen</a>
            </li>
          </ul>
        </section>
        <p>
          <a href={overview}>Alle verzekeringen</a>
        </p>
      </div>
    </article>
  )
}

/** `a, b en c`. */
function listText(items: readonly string[]): string {
  if (items.length < 2) return items.join('')
  return `${items.slice(0, -1).join(', ')} en ${items.at(-1)}`
}

/** The insurance as a service of the agency in the page's structured data (structured-data.ts). */
InsuranceScreen.jsonLd = ((payload, site, siteUrl, url) => {
  const insurance = dataOf<EntryData<Insurance>>(payload, 'entry')?.entry
  if (!insurance) return []
  return [
    {
      '@type': 'Service',
      name: insurance.title,
      description: insurance.intro,
      provider: { '@id': `${siteUrl}/#organisatie`, '@type': 'InsuranceAgency', name: site.companyName },
      url,
    },
  ]
}) satisfies ScreenJsonLd
