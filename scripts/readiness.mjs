// Asks every gateway's readiness, where it answers: `GET /readyz` on the internal listener, which listens on the
// stack's `scrape` network only. Run in a throwaway container on that network, from the site's own image:
//   docker run --rm --network site_scrape --entrypoint node IMAGE scripts/readiness.mjs
// Prints one line per gateway address (its status and the checks that are not ok) and exits 0 when every one
// answers 200, 1 when one does not, 2 when the name has no address. READINESS_NAME (default `gateway`) and
// READINESS_PORT (default 3100) say where to ask.
import { lookup } from 'node:dns/promises'

const name = process.env.READINESS_NAME || 'gateway'
const port = process.env.READINESS_PORT || '3100'

/** One gateway's answer: its status and the checks that are not `ok` (or why it did not answer). */
async function readinessOf(address) {
  const host = address.includes(':') ? `[${address}]` : address
  try {
    const response = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(5000) })
    const body = await response.json().catch(() => ({}))
    const failing = Object.entries(body.checks ?? {}).filter(([, value]) => value !== 'ok').map(([check, value]) => `${check}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    return { address, status: response.status, failing, builds: body.builds }
  } catch (error) {
    return { address, status: 0, failing: [String(error.cause?.code ?? error.name ?? error)] }
  }
}

const addresses = await lookup(name, { all: true }).catch(() => [])
if (addresses.length === 0) {
  console.log(`${name}: no address (is this container on the stack's scrape network, and is the stack up?)`)
  process.exit(2)
}
const answers = await Promise.all(addresses.map(({ address }) => readinessOf(address)))
for (const { address, status, failing, builds } of answers) {
  console.log(`${address}:${port} ${status === 200 ? 'ready' : `NOT READY (${status || 'no answer'})`}${failing.length > 0 ? `; ${failing.join('; ')}` : ''}${builds ? ` builds ${JSON.stringify(builds)}` : ''}`)
}
const ready = answers.filter((answer) => answer.status === 200).length
console.log(`${ready} of ${answers.length} ready`)
process.exitCode = ready === answers.length ? 0 : 1
