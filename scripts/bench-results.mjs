// The figures of `npm run bench` from its rounds: each target computed in
// every round from that round's requests per second and reported as the
// median of the rounds with its spread, "no scenario slower" against an
// earlier run or the baseline commit's twins, and a round's figures of a
// scenario from its slices.
import { median } from './bench-load.mjs'

// A later run's "no scenario slower" compares with this one: within this share of its ratio to nginx is not slower.
export const SLOWER_TOLERANCE = 0.1

/**
 * The targets of issue 17, issue 51 and the earlier ones, each computed in
 * every round from that round's figures (`r`: requests per second by
 * scenario id); one whose scenarios did not run is left out.
 */
export const TARGETS = [
  {
    key: 'gateway_fresh_render_vs_hop_floor',
    description: "the gateway's own CPU per fresh page, (1/#4 - 1/#4a), over the floor of the two hops, 1/#4b; at most 1.5 means scenario 4 >= 1/(1/4a + 1.5/4b)",
    comparison: '<=',
    required: 1.5,
    of: (r) => (1 / r['4'] - 1 / r['4a']) * r['4b'],
    details: (r) => ({
      scenario4_rps_required: 1 / (1 / r['4a'] + 1.5 / r['4b']),
      gateway_own_us: 1e6 / r['4'] - 1e6 / r['4a'],
      hop_floor_us: 1e6 / r['4b'],
      renderer_us: 1e6 / r['4a'],
    }),
  },
  {
    key: 'gateway_own_time_us',
    description: "the gateway's own time per fresh page in µs, 1/#4 - 1/#4a (the whole path's time per page less the renderer's alone, both on the servers' one core); issue 51",
    comparison: '<=',
    required: 400,
    of: (r) => 1e6 / r['4'] - 1e6 / r['4a'],
  },
  { key: 'renderer_vs_render_to_string', description: 'the renderer alone (#4a) over a bare renderToString of the same page on a bare Fastify route (#4r)', comparison: '>=', required: 0.6, of: (r) => r['4a'] / r['4r'] },
  { key: 'page_cache_hit_vs_same_headers', description: 'page cache hits (#3) over bare Fastify sending the same bytes under the same headers (#2h)', comparison: '>=', required: 0.9, of: (r) => r['3'] / r['2h'] },
  { key: 'compressed_vs_plain_fresh_page', description: 'a fresh page compressed as browsers ask (#4c) over the same uncompressed (#4)', comparison: '>=', required: 0.85, of: (r) => r['4c'] / r['4'] },
  { key: 'page_cache_hit_vs_bare_fastify', description: 'page cache hits (#3) over bare Fastify with the same bytes (#2); issue 13', comparison: '>=', required: 0.9, of: (r) => r['3'] / r['2'] },
  {
    key: 'fresh_page_vs_nuxt',
    description: 'a page rendered on every request (#4) over the Nuxt peer rendering the same home page from the same data on every request (#nuxt, scripts/bench-nuxt.mjs); issue 51',
    comparison: '>=',
    required: 1.2,
    of: (r) => r['4'] / r.nuxt,
  },
  { key: 'fresh_page_vs_nginx', description: 'a fresh page (#4) over nginx serving the same bytes (#1); issue 13', comparison: '>=', required: 0.04, of: (r) => r['4'] / r['1'] },
]

export const round3 = (value) => Number(value.toFixed(3))
export const spreadOf = (values) => ({ value: round3(median(values)), min: round3(Math.min(...values)), max: round3(Math.max(...values)) })

/** Each target's median over the rounds against what it requires, with the spread and every round's value. */
export function targetResults(rpsByRound) {
  return Object.fromEntries(
    TARGETS.filter((target) => Number.isFinite(target.of(rpsByRound[0]))).map((target) => {
      const values = rpsByRound.map((r) => target.of(r))
      const { value, min, max } = spreadOf(values)
      const met = target.comparison === '>=' ? value >= target.required : value <= target.required
      const details = target.details
        ? Object.fromEntries(Object.keys(target.details(rpsByRound[0])).map((name) => [name, Number(median(rpsByRound.map((r) => target.details(r)[name])).toFixed(1))]))
        : undefined
      return [target.key, { description: target.description, value, comparison: target.comparison, required: target.required, met, spread: [min, max], rounds: values.map(round3), ...(details ? { details } : {}) }]
    }),
  )
}

/**
 * "No scenario slower": each scenario's ratio to nginx against an earlier
 * run's (same id and name), slower only beyond SLOWER_TOLERANCE of it.
 */
export function comparedWithBaseline(table, baseline, file) {
  if (!baseline || baseline.mode !== 'full') return { baseline: null, met: null, note: 'no full earlier run to compare with' }
  const earlier = new Map(baseline.scenarios.map((row) => [`${row.scenario}\u0000${row.name}`, row]))
  const compared = []
  for (const row of table) {
    if (row.twin_of !== undefined) continue
    const before = earlier.get(`${row.scenario}\u0000${row.name}`)
    if (!before) continue
    const change = row.vs_nginx / before.vs_nginx
    compared.push({ scenario: row.scenario, vs_nginx_before: before.vs_nginx, vs_nginx_now: row.vs_nginx, change: round3(change), slower: change < 1 - SLOWER_TOLERANCE })
  }
  return { baseline: { file, date: baseline.date }, tolerance: SLOWER_TOLERANCE, scenarios: compared, slower: compared.filter((row) => row.slower).map((row) => row.scenario), met: compared.every((row) => !row.slower) }
}

/**
 * "No scenario slower" in the same run: each product scenario over its twin
 * on the baseline commit's systems, taken in every round (the two ran in
 * turns, slice by slice); slower when the median of the rounds is below
 * 1 - SLOWER_TOLERANCE.
 */
export function comparedWithTwins(rpsByRound, twins, commit) {
  const compared = twins.map((twin) => {
    const ratio = spreadOf(rpsByRound.map((r) => r[String(twin.twinOf)] / r[String(twin.id)]))
    return { scenario: twin.twinOf, vs_baseline: ratio.value, rounds_min: ratio.min, rounds_max: ratio.max, slower: ratio.value < 1 - SLOWER_TOLERANCE }
  })
  return {
    method: 'same run: each scenario over its twin on the baseline commit, median of the per-round ratios',
    baseline: { commit },
    tolerance: SLOWER_TOLERANCE,
    scenarios: compared,
    slower: compared.filter((row) => row.slower).map((row) => row.scenario),
    met: compared.every((row) => !row.slower),
  }
}

/** One round's figures of a scenario from its slices: requests over the seconds they took, the slices' median latencies. */
export function combineSlices(slices) {
  const sum = (pick) => slices.reduce((total, slice) => total + (pick(slice) ?? 0), 0)
  const seconds = sum((slice) => (slice.rps > 0 ? slice.requests / slice.rps : 0))
  const requests = sum((slice) => slice.requests)
  const latency = (pick) => (slices.some((slice) => pick(slice) !== null) ? median(slices.map(pick).filter((value) => value !== null)) : null)
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    requests,
    p50: latency((slice) => slice.p50),
    p99: latency((slice) => slice.p99),
    non2xx: sum((slice) => slice.non2xx),
    errors: sum((slice) => slice.errors),
    ...(slices[0].wrong === undefined ? {} : { wrong: sum((slice) => slice.wrong) }),
    ...(slices[0].cpuUs === undefined ? {} : { cpuUs: sum((slice) => slice.cpuUs) }),
    ...(slices[0].gatewayCpuUs === undefined ? {} : { gatewayCpuUs: sum((slice) => slice.gatewayCpuUs) }),
    ...(slices[0].rendererPreempted === undefined ? {} : { rendererPreempted: sum((slice) => slice.rendererPreempted) }),
    load1: slices[0].load1,
  }
}
