import type { EntryData, Insurance } from '../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { openingHoursSummary } from '../components/contact-details.tsx'
import { phoneText, telHref } from '../components/format.ts'
import { useSite } from '../components/site-context.tsx'
import { PageIntro } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

/** The e-mail a visitor starts from an insurance's page: its subject names the insurance. */
export function adviceMailto(email: string, insurance: string): string {
  return `mailto:${email}?subject=${encodeURIComponent(`Vraag over de ${insurance.toLowerCase()}`)}`
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
