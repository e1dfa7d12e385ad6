/**
 * A Location this site may send for one of its own pages: one `/` followed by
 * neither `/` nor `\` (a browser reads `//host` and `/\host` as another
 * origin); the home page for anything else. Checked on the address as it is
 * sent, after every decoding and re-encoding that made it.
 */
export function localLocation(location: string): string {
  if (!location.startsWith('/')) return '/'
  const next = location.charAt(1)
  return next === '/' || next === '\\' ? '/' : location
}
