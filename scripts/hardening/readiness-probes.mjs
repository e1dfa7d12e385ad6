// CMS calls per 300 readiness probes, 30 at a time (issue 24): readiness is
// cached for READINESS_CACHE_MS, so probes cannot be turned into CMS calls.
import { gatewayCmsCalls } from './junk-tokens.mjs'
import { load, log, startSite } from './report-kit.mjs'

const PROBES = 300

export async function measureReadinessProbes() {
  const site = await startSite()
  try {
    const callsBefore = await gatewayCmsCalls(site.internalUrl)
    const run = await load(PROBES, 30, () => ({ url: `${site.internalUrl}/readyz` }))
    const result = { probes: run.sent, statuses: run.statuses, cmsCalls: (await gatewayCmsCalls(site.internalUrl)) - callsBefore }
    log('readiness', result)
    return result
  } finally {
    await site.close()
  }
}

export const readinessProbesRows = (result) => [[`CMS calls, ${result.probes} readiness probes`, String(result.cmsCalls)]]
