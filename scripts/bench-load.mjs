// The load of `npm run bench`: wrk on core 1 for the timed rounds, and the
// smoke round, which sends a fixed number of requests itself and checks
// every answer.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { request } from 'undici'
import { log, pin } from './bench-processes.mjs'

export const CONNECTIONS = 50
// The smoke round counts requests, not seconds: a loaded machine makes it slower, never emptier.
export const SMOKE_REQUESTS = 40
export const SMOKE_CONCURRENCY = 8

/**
 * One wrk run (optionally with a Lua script and extra request headers):
 * requests per second, how many were answered, and latency percentiles in milliseconds.
 */
export function wrk(url, seconds, { script, headers = {} } = {}) {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const [cmd, argv] = pin(1, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...headerArgs, ...(script ? ['-s', script] : []), url])
  return wrkResult(execFileSync(cmd, argv, { encoding: 'utf8' }))
}

/** What wrk printed (run with --latency for the percentiles), as numbers. */
export function wrkResult(out) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
  const unit = (value, suffix) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[suffix] ?? 1)
  const pct = (p) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out)
    return m ? unit(m[1], m[2]) : null
  }
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return { rps, requests, p50: pct(50), p99: pct(99), non2xx, errors }
}

export const percentile = (values, p) => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const DECODERS = { br: brotliDecompressSync, gzip: gunzipSync }

/**
 * Whether a 2xx answer is what the scenario serves: encoded as it asks
 * (`scenario.encoding`), and a body it accepts once decoded; a body that does
 * not even parse is a wrong one.
 */
function answersRightly(scenario, headers, body) {
  try {
    const encoding = headers['content-encoding']
    if ((scenario.encoding ?? undefined) !== encoding) return false
    const text = (encoding ? DECODERS[encoding](body) : body).toString('utf8')
    return scenario.answers(text)
  } catch {
    return false
  }
}

/**
 * The smoke round of one scenario: `count` requests, SMOKE_CONCURRENCY at a
 * time, each answer's status and body checked; in the shape of wrk's
 * results, with how many requests were answered and how many answers were wrong.
 */
export async function smokeRound(scenario, options, count = SMOKE_REQUESTS) {
  const latencies = []
  let non2xx = 0
  let wrong = 0
  let errors = 0
  const started = performance.now()
  const worker = async (share) => {
    for (let i = 0; i < share; i++) {
      const sent = performance.now()
      try {
        const url = typeof scenario.url === 'function' ? scenario.url() : scenario.url
        const response = await request(url, options)
        const body = Buffer.from(await response.body.arrayBuffer())
        latencies.push(performance.now() - sent)
        if (response.statusCode < 200 || response.statusCode >= 300) non2xx++
        else if (!answersRightly(scenario, response.headers, body)) wrong++
      } catch (error) {
        errors++
        log(`#${scenario.id}: ${error.message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: SMOKE_CONCURRENCY }, () => worker(count / SMOKE_CONCURRENCY)))
  const seconds = (performance.now() - started) / 1000
  const ms = (value) => (value === null ? null : Number(value.toFixed(2)))
  return { rps: latencies.length / seconds, p50: ms(percentile(latencies, 50)), p99: ms(percentile(latencies, 99)), non2xx, errors, requests: latencies.length, wrong }
}

/**
 * One scenario's load for a round: wrk for `seconds` (its Lua script and
 * headers), or in the smoke round `count` requests sent and checked here
 * (`scenario.request`: the undici options of a POST; a GET with its headers otherwise).
 */
export function runScenario(scenario, { smoke, seconds, count = SMOKE_REQUESTS }) {
  if (smoke) return smokeRound(scenario, scenario.request ?? { method: 'GET', headers: scenario.headers ?? {} }, count)
  return wrk(scenario.wrkUrl ?? scenario.url, seconds, { script: scenario.script, headers: scenario.headers })
}

/** Time to first byte of one request, in milliseconds. */
export async function ttfb(url) {
  const started = performance.now()
  const response = await fetch(url)
  const reader = response.body.getReader()
  await reader.read()
  const elapsed = performance.now() - started
  await reader.cancel()
  return elapsed
}

/** A wrk script that POSTs `text` (with `headers`) on every request. */
export function luaPost(dir, name, contentType, text, headers = {}) {
  const file = join(dir, `${name}.lua`)
  const extra = Object.entries(headers).map(([header, value]) => `wrk.headers[${JSON.stringify(header)}] = ${JSON.stringify(value)}\n`).join('')
  writeFileSync(file, `wrk.method = "POST"\nwrk.headers["Content-Type"] = ${JSON.stringify(contentType)}\n${extra}wrk.body = ${JSON.stringify(text)}\n`)
  return file
}

