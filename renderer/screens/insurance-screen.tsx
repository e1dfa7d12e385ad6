import type { EntryData, Insurance, OpeningHours } from '../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { phoneText, telHref } from '../components/format.ts'
import { useSite } from '../components/site-context.tsx'
import { PageIntro } from './common.tsx'
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

/** One insurance: its text, then what to do next (call, e-mail about it, or the contact page). */
export function InsuranceScreen({ payload }: ScreenProps) {
  const insurance = dataOf<EntryData<Insurance>>(payload, 'entry')?.entry
  const site = useSite()
  if (!insurance) return null
  // When the general number answers: the site's opening hours (the damage line is 24/7, in the bar).
  const hours = openingHoursSummary(site?.openingHours ?? null)
  const overview = payload.path.slice(0, payload.path.lastIndexOf('/'))
  return (
    <article>
      <PageIntro title={insurance.title} intro={insurance.intro} entry={insurance} />
      <div className="container">
        <RichText html={insurance.text} />
        <section className="cta next-step" aria-labelledby="volgende-stap">
          <h2 id="volgende-stap">Advies over uw {insurance.title.toLowerCase()}?</h2>
          <p>Een adviseur kijkt met u naar de dekking die bij u past, en vergelijkt voor u de verzekeraars.</p>
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
            {site ? (
              <li>
                <a className="button button--secondary" href={adviceMailto(site.email, insurance.title)}>
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
