// CMS calls per 1,000 junk-token requests from one address (issue 24):
// previews are limited, the rest is served from the caches. Counted by the
// gateway's own histogram of CMS calls, as this figure always was.
import { request } from 'undici'
import { WARM_PAGES } from './api-memory.mjs'
import { load, log, startSite } from './report-kit.mjs'

const REQUESTS = 1000

export async function gatewayCmsCalls(internalUrl) {
  const response = await request(`${internalUrl}/metrics`)
  const text = await response.body.text()
  let total = 0
  for (const match of text.matchAll(/^upstream_request_duration_seconds_count\{[^}]*\} (\d+)/gm)) total += Number(match[1])
  return total
}

export async function measureJunkTokens() {
  const site = await startSite()
  try {
    for (const path of WARM_PAGES) await load(3, 1, () => ({ url: `${site.url}${path}` }))
    const junkKinds = [
      (i) => ({ url: `${site.url}/actueel?x-craft-preview=1&token=junk-${i}` }),
      (i) => ({ url: `${site.url}/actueel?token=junk-${i}` }),
      (i) => ({ url: `${site.url}/actueel`, headers: { cookie: `craft_token=junk-${i}` } }),
      (i) => ({ url: `${site.url}/actueel/_payload.json`, headers: { cookie: `craft_token=junk-${i}` } }),
      (i) => ({ url: `${site.url}/actueel?x-craft-preview=1&token=not.a.token.${i}` }),
    ]
    const callsBefore = await gatewayCmsCalls(site.internalUrl)
    const run = await load(REQUESTS, 20, (i) => junkKinds[i % junkKinds.length](i))
    const result = { requests: run.sent, statuses: run.statuses, cmsCalls: (await gatewayCmsCalls(site.internalUrl)) - callsBefore }
    log('junk tokens', result)
    return result
  } finally {
    await site.close()
  }
}

export const junkTokensRows = (result) => [[`CMS calls, ${result.requests} junk-token requests, one address`, `${result.cmsCalls} (${Object.entries(result.statuses).map(([status, n]) => `${n}×${status}`).join(' ')})`]]
