import { GENERIC_ERROR_HEADING, NOT_FOUND_FALLBACK_HEADING } from '../../../shared/constants.ts'
import { NOT_FOUND_SUGGESTION_CLASS } from '../../../shared/not-found-suggestion.ts'
import type { PagePayload } from '../../../shared/payload.ts'
import { RichText } from './cms-content.tsx'
import { SiteLink } from './site-context.tsx'

/**
 * 404: the notFound entry's title (or the fixed Dutch heading), the page the
 * address most likely meant ("Bedoelde u …?", the gateway's suggestion, which
 * it fills into the one stored 404 page per visitor) and the entry's text.
 * Other statuses: the generic heading; a 500 shows its message too; and a
 * link to the same address that tries again (on the client too: a failed
 * view does not count as its address loaded, client-app.tsx); a path that
 * starts with `//` must not become a link to the host it names.
 */
export function ErrorPage({ payload }: { payload: PagePayload }) {
  const statusCode = payload.error?.statusCode ?? payload.status
  if (statusCode === 404) {
    return (
      <div className="container error-page" data-status={statusCode}>
        <h1>{payload.notFound?.title || NOT_FOUND_FALLBACK_HEADING}</h1>
        {payload.suggestion ? (
          <p className={NOT_FOUND_SUGGESTION_CLASS}>
            Bedoelde u <SiteLink href={payload.suggestion}>{payload.suggestion}</SiteLink>?
          </p>
        ) : null}
        <RichText html={payload.notFound?.text} />
        {payload.notFound?.text ? null : (
          <p>
            <SiteLink href="/">Naar de homepage</SiteLink>
          </p>
        )}
      </div>
    )
  }
  return (
    <div className="container error-page" data-status={statusCode}>
      <h1>{GENERIC_ERROR_HEADING}</h1>
      {statusCode === 500 && payload.error?.message ? <p className="error-page__message">{payload.error.message}</p> : null}
      <p>
        <SiteLink href={payload.fullPath.replace(/^\/+/, '/')}>Probeer het opnieuw</SiteLink> of ga naar de <SiteLink href="/">homepage</SiteLink>.
      </p>
    </div>
  )
}
