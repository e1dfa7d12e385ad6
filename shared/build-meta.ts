/** A redirect of the site: from one path to another, permanent or not. */
export interface RedirectRule {
  from: string
  to: string
  statusCode: 301 | 302
}

/**
 * What `builds/meta/{id}.json` says about a build: the gateway answers it,
 * the browser reads its redirects to follow them on client navigation.
 */
export interface BuildMeta {
  id: string
  timestamp: number
  matchers: { redirects: RedirectRule[]; prerendered: string[] }
}
