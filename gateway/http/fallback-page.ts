import { GENERIC_ERROR_HEADING, LOADING_BAR } from '../../shared/constants.ts'

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const EXPLANATIONS: Record<number, string> = {
  400: 'Dit adres klopt niet. Controleer de link of ga naar de homepage.',
  404: 'Deze pagina bestaat niet (meer).',
  414: 'Dit adres is te lang. Controleer de link of ga naar de homepage.',
  429: "U heeft in korte tijd erg veel pagina's of voorbeeldpagina's opgevraagd. Probeer het over een minuut opnieuw.",
  503: 'De website is even niet beschikbaar. Probeer het over een paar minuten opnieuw.',
}

/**
 * The page the gateway answers with itself when no renderer can: plain,
 * Dutch, without scripts, in the colours of the error page.
 */
export function fallbackPage(statusCode: number): string {
  const text = EXPLANATIONS[statusCode] ?? 'Probeer het later opnieuw.'
  return `<!DOCTYPE html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(GENERIC_ERROR_HEADING)}</title>
<link rel="stylesheet" href="/styles.css"></head>
<body><div class="app app--error"><div class="loading-bar loading-bar--error" style="height:${LOADING_BAR.heightPx}px;background:${LOADING_BAR.errorPageColour}"></div>
<main id="inhoud" class="main"><div class="container"><h1>${escapeHtml(GENERIC_ERROR_HEADING)}</h1><p>${escapeHtml(text)}</p>
<p><a href="/">Naar de homepage</a></p></div></main></div></body></html>`
}
