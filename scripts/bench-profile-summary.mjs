// What a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) says, in
// numbers: self time grouped by function and source file (bundled code mapped
// back through its source map), optionally only between two moments, and
// what each step of a fresh render costs. Used by `npm run bench -- --profile`;
// on its own:
//
//   node scripts/bench-profile-summary.mjs FILE.cpuprofile [--top=25] [--steps=gateway|renderer] [--from=µs --to=µs]
//
// A .cpuprofile is JSON: `nodes` (a call tree; each node a callFrame and its
// children's ids), `samples` (the id of the node on top of the stack at each
// tick) and `timeDeltas` (microseconds since the previous tick), from
// `startTime` (microseconds on the monotonic clock, the one
// process.hrtime.bigint() reads, so another process can mark a window on it).
import { existsSync, readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mainFileArgument } from './main-file-argument.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Ticks that are not JavaScript running: the process waiting, V8 outside JS, or collecting garbage. */
const IDLE = '(idle)'
const META = new Set([IDLE, '(root)'])

/** Source maps of bundled files (dist/*.js), read once each. */
const sourceMaps = new Map()
function sourceMapOf(path) {
  if (!sourceMaps.has(path)) {
    const file = `${path}.map`
    sourceMaps.set(path, existsSync(file) ? { map: new SourceMap(JSON.parse(readFileSync(file, 'utf8'))), dir: dirname(file) } : undefined)
  }
  return sourceMaps.get(path)
}

/** A path relative to the project; a dependency as `node_modules/...` wherever node_modules really is (a worktree links it). */
function projectPath(path) {
  const cut = path.lastIndexOf('/node_modules/')
  return cut === -1 ? relative(ROOT, path) : path.slice(cut + 1)
}

/** A frame's source file, relative to the project (node_modules/..., gateway/..., node:...), and line, through the source map when there is one. */
function whereOf(callFrame) {
  const { url, lineNumber, columnNumber } = callFrame
  if (!url) return { file: '', line: lineNumber + 1 }
  if (!url.startsWith('file://')) return { file: url, line: lineNumber + 1 }
  const path = fileURLToPath(url)
  const mapped = sourceMapOf(path)
  if (mapped) {
    const entry = mapped.map.findEntry(lineNumber, columnNumber)
    if (entry?.originalSource) {
      const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(mapped.dir, entry.originalSource)
      return { file: projectPath(source), line: entry.originalLine + 1 }
    }
  }
  return { file: projectPath(path), line: lineNumber + 1 }
}

/** Each node with its parent and its place in the sources, by id. */
function indexNodes(profile) {
  const byId = new Map()
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName || '(anonymous)'
    byId.set(node.id, { id: node.id, name, ...whereOf(node.callFrame), parent: undefined, raw: node })
  }
  for (const node of profile.nodes) for (const child of node.children ?? []) byId.get(child).parent = byId.get(node.id)
  return byId
}

/** The node id of each tick, with its time; only those within [from, to] (µs, monotonic) when given. */
function ticksOf(profile, window) {
  const ticks = []
  let time = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0
    if (window && (time < window.from || time > window.to)) continue
    ticks.push(profile.samples[i])
  }
  return ticks
}

/** The package or area a source file belongs to: `fastify`, `undici`, `node:http`, `gateway`, ... */
export function areaOf(file) {
  if (file === '') return '(V8)'
  const modules = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
  if (modules) return modules[1]
  if (file.startsWith('node:')) {
    const core = file.slice('node:'.length).replace(/^internal\//, '')
    if (/^_http|^http/.test(core)) return 'node:http'
    if (/^streams?\b|^stream/.test(core)) return 'node:stream'
    if (/^(net|stream_base|dgram|tcp)/.test(core)) return 'node:net'
    if (/zlib/.test(core)) return 'node:zlib'
    if (/crypto/.test(core)) return 'node:crypto'
    if (/^(process|timers|async_hooks|event_target|events)/.test(core) || core === 'events') return 'node:events/timers'
    return `node:${core.split('/')[0]}`
  }
  return file.split('/')[0]
}

/**
 * Self time by function and file: the top `top` entries, with each one's
 * share of the busy ticks (the process doing anything but waiting) and, when
 * `perRequestMicros` (the main thread's CPU time per request) is given, its
 * microseconds per request.
 */
export function summarize(profile, { window, top = 25, perRequestMicros } = {}) {
  const nodes = indexNodes(profile)
  const ticks = ticksOf(profile, window)
  const idle = ticks.filter((id) => nodes.get(id).name === IDLE).length
  const busy = ticks.length - idle
  const groups = new Map()
  const areas = new Map()
  for (const id of ticks) {
    const node = nodes.get(id)
    if (META.has(node.name)) continue
    const key = `${node.name}\u0000${node.file}`
    const group = groups.get(key) ?? { function: node.name, file: node.file, line: node.line, ticks: 0 }
    group.ticks++
    groups.set(key, group)
    const area = node.name.startsWith('(') ? node.name : areaOf(node.file)
    areas.set(area, (areas.get(area) ?? 0) + 1)
  }
  const share = (count) => (busy === 0 ? 0 : count / busy)
  const micros = (count) => (perRequestMicros === undefined ? undefined : Number((share(count) * perRequestMicros).toFixed(1)))
  const rows = [...groups.values()]
    .sort((a, b) => b.ticks - a.ticks)
    .slice(0, top)
    .map((group) => ({ ...group, self_pct: Number((100 * share(group.ticks)).toFixed(1)), us_per_request: micros(group.ticks) }))
  const byArea = [...areas.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([area, count]) => ({ area, self_pct: Number((100 * share(count)).toFixed(1)), us_per_request: micros(count) }))
  return { ticks: ticks.length, busy_ticks: busy, idle_pct: Number(((100 * idle) / Math.max(1, ticks.length)).toFixed(1)), top: rows, by_area: byArea }
}

/**
 * The steps of a fresh render. Each is a list of matchers: a frame's `file`,
 * optionally its function (`fn`); `self: true` counts only ticks in that
 * frame itself, for code that calls on to everything after it (a Fastify
 * hook calling `next()`, like helmet's and compress's, would otherwise take
 * the whole request). A tick counts for the step of the innermost matching
 * frame on its stack, so a step's figure includes what its functions call
 * (Node's, undici's, Fastify's). Ticks under no step are counted by where
 * they are (Node's HTTP server, Fastify, GC).
 */
const HEADER_FUNCTIONS = /^(setHeader|getHeader|hasHeader|removeHeader|getHeaders|_storeHeader|processHeader|validateHeaderName|validateHeaderValue|checkInvalidHeaderChar|_renderHeaders|writeHead|header|headers|code|type)$/
const HEADERS = [
  { file: /^node:_http_outgoing$/, fn: HEADER_FUNCTIONS },
  { file: /^node:_http_server$/, fn: /^writeHead$/ },
  { file: /^node_modules\/fastify\/lib\/reply\.js$/, fn: /^(header|headers|getHeader|hasHeader|removeHeader|code|status|type|trailer)$/ },
]
const SENDING = [{ file: /^node_modules\/fastify\/lib\/reply\.js$/, fn: /^(send|onSendHook|onSendEnd|wrapOnSendEnd|sendStream|sendTrailer)$/ }]
const LOGGING_METRICS = [/^node_modules\/pino/, /^node_modules\/prom-client\//, /^shared\/logging\.ts$/, /^shared\/metrics\.ts$/, /^node_modules\/sonic-boom\//, /^node_modules\/thread-stream\//].map((file) => ({ file }))
const files = (...patterns) => patterns.map((file) => ({ file }))

const STEPS = {
  gateway: [
    {
      step: 'storing: nonce strip and hashes, gzip and brotli of the page, LRU',
      match: [
        ...files(/^gateway\/cache\/page-cache\.ts$/),
        // The rest of page-cache-hits.ts is the server's request listener, under which Fastify runs.
        { file: /^gateway\/cache\/page-cache-hits\.ts$/, fn: /^headersForCache$/ },
        { file: /^gateway\/http\/content-security\.ts$/, fn: /^(forCaching|hashesOf|hashOf)$/ },
        { file: /^gateway\/routes\/pages\.ts$/, fn: /^(recordedWhenSent|storeWhenComplete|store)$/ },
        { file: /^gateway\/plugins\/app\/page-cache\.ts$/ },
      ],
    },
    { step: 'tags: the answer\'s read, tag headers', match: files(/^shared\/render-protocol\/tags\.ts$/, /^gateway\/cache\/cache-tags\.ts$/) },
    {
      step: 'payload assembly: loaders through the query cache, JSON, render request body',
      match: [
        ...files(/^gateway\/payload\//, /^gateway\/craft\/content-service\.ts$/, /^gateway\/cache\/query-cache\.ts$/, /^shared\/cache-key\.ts$/, /^shared\/render-protocol\/request-body\.ts$/, /^shared\/script-json\.ts$/, /^shared\/routes\.ts$/, /^gateway\/pages\/settled-at-once\.ts$/, /^gateway\/pages\/render-request\.ts$/, /^gateway\/plugins\/app\/payloads\.ts$/),
      ],
    },
    {
      step: 'render request: sign, undici request and response, commit window',
      match: files(/^gateway\/renderers\//, /^gateway\/plugins\/app\/renderers\.ts$/, /^shared\/render-protocol\/signature\.ts$/, /^node_modules\/undici\//),
    },
    { step: 'redirect lookup', match: files(/^gateway\/pages\/redirects\.ts$/, /^gateway\/plugins\/app\/redirects\.ts$/) },
    { step: 'logging and metrics', match: LOGGING_METRICS },
    {
      step: 'headers and CSP: helmet, CSP, cache headers, onSend hooks, setHeader/writeHead',
      match: [
        ...files(/^gateway\/http\/content-security\.ts$/, /^gateway\/http\/http-caching\.ts$/, /^gateway\/preview\/tokens\.ts$/, /^gateway\/plugins\/app\/(cache-status|security-headers|request-tracing)\.ts$/),
        { file: /^node_modules\/(@fastify\/)?helmet\//, self: true },
        { file: /^gateway\/app\.ts$/, self: true },
        { file: /^gateway\/routes\/pages\.ts$/, fn: /^(nonceCsp|csp|dropUnusableCookie|passedHeaders)$/ },
        ...HEADERS,
      ],
    },
    {
      step: 'compression of the answer (@fastify/compress; zlib on this thread when the page fits its syncThreshold)',
      match: [{ file: /^node_modules\/@fastify\/compress\//, self: true }, { file: /zlib/, under: /^node_modules\/@fastify\/compress\// }],
    },
    { step: 'streaming through: reply.send of the page to the visitor (onSend, socket write)', match: SENDING },
    { step: 'the page route (rest of pages.ts)', match: files(/^gateway\/routes\/pages\.ts$/) },
  ],
  renderer: [
    { step: 'React render (renderToString / stream)', match: [...files(/^node_modules\/react(-dom)?\//, /^renderer\/app\//, /^renderer\/server\/(document|module-preloads)/), { file: /^renderer\/server\/render\.tsx$/, fn: /^(documentOf)$/ }] },
    {
      step: 'request body: read, signature check, split and JSON.parse',
      match: files(/^shared\/render-protocol\/(request-body|signature)\.ts$/, /^node_modules\/fastify\/lib\/content-type-parser\.js$/, /^node_modules\/secure-json-parse\//, /^shared\/script-json\.ts$/),
    },
    { step: 'rich text cleaning (walk and sanitiser memo)', match: files(/^shared\/rich-text-sanitizer\.ts$/, /^node_modules\/sanitize-html\//, /^node_modules\/lru-cache\//) },
    { step: 'logging and metrics', match: LOGGING_METRICS },
    { step: 'headers: startReply, setHeader/writeHead', match: [{ file: /^renderer\/server\/render\.tsx$/, fn: /^startReply$/ }, ...HEADERS] },
    { step: 'sending the page: reply.send (onSend, socket write)', match: SENDING },
    { step: 'the render route (rest of app.ts and render.tsx)', match: files(/^renderer\/server\/app\.ts$/, /^renderer\/server\/render\.tsx$/) },
  ],
}

/** Where a tick under no step is spent. */
function leftoverOf(node) {
  if (node.name.startsWith('(')) return node.name === '(garbage collector)' ? 'garbage collection' : `${node.name} (V8 and native code outside JS)`
  if (node.file === '') return 'native code called from outside any step'
  const area = areaOf(node.file)
  if (area === 'fastify' || area === 'find-my-way' || area === 'avvio' || area === 'fastq' || area.startsWith('@fastify/')) return 'Fastify (routing, hooks, reply) outside a step'
  if (area.startsWith('node:')) return "Node's HTTP server, sockets, streams and events outside a step"
  return `other: ${area}`
}

/**
 * Ticks per step (see STEPS) as a share of the busy ticks and, with
 * `perRequestMicros`, microseconds per request.
 */
export function stepsOf(profile, service, { window, perRequestMicros, topLeaves = 4 } = {}) {
  const rules = STEPS[service]
  if (!rules) throw new Error(`no steps for ${service}`)
  const nodes = indexNodes(profile)
  const stepOfNode = new Map()
  const under = (node, pattern) => {
    for (let at = node.parent; at; at = at.parent) if (pattern.test(at.file)) return true
    return false
  }
  const matches = (matcher, node, leaf) =>
    (!matcher.self || leaf) && matcher.file.test(node.file) && (!matcher.fn || matcher.fn.test(node.name)) && (!matcher.under || under(node, matcher.under))
  const stepOf = (node) => {
    if (stepOfNode.has(node.id)) return stepOfNode.get(node.id)
    let found
    for (let at = node; at && !found; at = at.parent) found = rules.find((rule) => rule.match.some((matcher) => matches(matcher, at, at === node)))?.step
    const step = found ?? leftoverOf(node)
    stepOfNode.set(node.id, step)
    return step
  }
  const ticks = ticksOf(profile, window)
  const counts = new Map()
  const leaves = new Map()
  let busy = 0
  for (const id of ticks) {
    const node = nodes.get(id)
    if (META.has(node.name)) continue
    busy++
    const step = stepOf(node)
    counts.set(step, (counts.get(step) ?? 0) + 1)
    const leaf = `${node.name} (${node.file || 'native'})`
    const inStep = leaves.get(step) ?? new Map()
    inStep.set(leaf, (inStep.get(leaf) ?? 0) + 1)
    leaves.set(step, inStep)
  }
  const share = (count) => count / Math.max(1, busy)
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([step, count]) => ({
      step,
      self_pct: Number((100 * share(count)).toFixed(1)),
      ...(perRequestMicros === undefined ? {} : { us_per_request: Number((share(count) * perRequestMicros).toFixed(1)) }),
      // What the step's ticks were spent in, by the function on top of the stack.
      top: [...leaves.get(step).entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, topLeaves)
        .map(([leaf, n]) => `${leaf} ${(100 * share(n)).toFixed(1)}%`),
    }))
}

/** A summary as Markdown tables. */
export function describe(summary, steps, { top = 15 } = {}) {
  const us = (value) => (value === undefined ? '' : ` | ${value}`)
  const perRequest = summary.top[0]?.us_per_request !== undefined
  const lines = [
    `busy ${summary.busy_ticks} of ${summary.ticks} ticks (idle ${summary.idle_pct}%)`,
    '',
    `| self % | ${perRequest ? 'µs/request | ' : ''}function | file:line |`,
    `|---|${perRequest ? '---|' : ''}---|---|`,
    ...summary.top.slice(0, top).map((row) => `| ${row.self_pct}${us(row.us_per_request)} | ${row.function} | ${row.file}:${row.line} |`),
    '',
    `| self % | ${perRequest ? 'µs/request | ' : ''}area |`,
    `|---|${perRequest ? '---|' : ''}---|`,
    ...summary.by_area.slice(0, 12).map((row) => `| ${row.self_pct}${us(row.us_per_request)} | ${row.area} |`),
  ]
  if (steps) {
    lines.push('', `| step | % | ${perRequest ? 'µs/request | ' : ''}mostly in |`, `|---|---|${perRequest ? '---|' : ''}---|`)
    for (const row of steps) lines.push(`| ${row.step} | ${row.self_pct}${us(row.us_per_request)} | ${row.top.join('; ')} |`)
  }
  return lines.join('\n')
}

const file = mainFileArgument(import.meta.url, 'node scripts/bench-profile-summary.mjs FILE.cpuprofile [--top=25] [--steps=gateway|renderer]')
if (file) {
  const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
  const top = Number(option('top') ?? 25)
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const service = option('steps')
  const window = option('from') ? { from: Number(option('from')), to: Number(option('to') ?? Infinity) } : undefined
  console.log(describe(summarize(profile, { top, window }), service ? stepsOf(profile, service, { window }) : undefined, { top }))
}
