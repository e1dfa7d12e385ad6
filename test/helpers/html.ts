/** The text inside the first <h1>, tags stripped and entities of the renderer decoded. */
export function h1Of(html: string): string | undefined {
  const match = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)
  return match?.[1] === undefined ? undefined : decodeEntities(match[1].replace(/<[^>]+>/g, '')).trim()
}

/** The document's <title>, entities of the renderer decoded. */
export function documentTitleOf(html: string): string | undefined {
  const match = /<title>([^<]*)<\/title>/.exec(html)
  return match?.[1] === undefined ? undefined : decodeEntities(match[1])
}

export function countOf(html: string, pattern: RegExp): number {
  return [...html.matchAll(new RegExp(pattern.source, 'g'))].length
}

export function decodeEntities(text: string): string {
  return text
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}
