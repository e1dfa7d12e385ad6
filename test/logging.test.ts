import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { stripVTControlCharacters } from 'node:util'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { readLogFormat } from '../shared/env.ts'
import { ConfigError } from '../shared/errors.ts'
import { freePort, retryOnAddressInUse } from './helpers/ports.ts'
import { ROOT, type Started, listening, startProcess } from './helpers/processes.ts'

// The built services as `npm start` and the containers run them: what they print is the subject.

const DIST = 'dist'
const SECRET_TOKEN = 'preview-secret-4711'
const base = (port: number): string => `http://127.0.0.1:${port}`

/** Resolves once the process's output has a line that passes `test`; fails if it exits first. */
function lineSeen(started: Started, test: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const line = lines(started).find(test)
      if (line === undefined) return
      started.child.stdout?.off('data', check)
      started.child.off('exit', exited)
      resolve(line)
    }
    const exited = (): void => reject(new Error(`the process exited before the line was seen:\n${started.output()}`))
    started.child.stdout?.on('data', check)
    started.child.once('exit', exited)
    check()
  })
}

/** The output's lines without colour codes. */
function lines(started: Started): string[] {
  return stripVTControlCharacters(started.output()).split('\n').filter((line) => line.trim() !== '')
}

interface Services {
  gateway: Started
  renderer: Started
  url: string
  internalUrl: string
  rendererUrl: string
}

async function startServices(t: Test, env: Record<string, string>): Promise<Services> {
  const shared = { RENDER_SECRET: 'logging-test-render-secret-0123456789', ...env }
  // The renderer and the gateway's other listeners bind port 0 and say where. The gateway's own port is named to the
  // renderer before the gateway binds it: if something took it meanwhile (EADDRINUSE), both start again on another.
  return retryOnAddressInUse(async () => {
    const gatewayPort = await freePort()
    const renderer = startProcess(`${DIST}/renderer.js`, { RENDERER_PORT: '0', GATEWAY_URL: base(gatewayPort), ...shared })
    t.teardown(() => renderer.stop('SIGKILL'))
    const rendererPort = (await listening(renderer, 'renderer')).port
    const gateway = startProcess(`${DIST}/gateway.js`, {
      HOST: '127.0.0.1',
      PORT: String(gatewayPort),
      INTERNAL_PORT: '0',
      EMBEDDED_CMS_PORT: '0',
      RENDERER_URL: base(rendererPort),
      RENDERER_PROBE_INTERVAL_MS: '100',
      ...shared,
    })
    t.teardown(() => gateway.stop('SIGKILL'))
    try {
      const { internal } = await listening(gateway, 'gateway')
      if (internal === undefined) throw new Error('the gateway named no internal listener')
      return { gateway, renderer, url: base(gatewayPort), internalUrl: internal, rendererUrl: base(rendererPort) }
    } catch (error) {
      await renderer.stop('SIGKILL')
      throw error
    }
  })
}

interface Answer {
  status: number
  cache: string
}

async function get(url: string, requestId?: string): Promise<Answer> {
  const response = await request(url, { headers: requestId ? { 'x-request-id': requestId } : {} })
  await response.body.dump()
  return { status: response.statusCode, cache: String(response.headers['x-cache']) }
}

/** Every probe of both services, once each. */
async function probeAll(t: Test, services: Services): Promise<void> {
  for (const url of [`${services.url}/healthz`, `${services.internalUrl}/healthz`, `${services.internalUrl}/readyz`, `${services.rendererUrl}/healthz`, `${services.rendererUrl}/readyz`]) {
    t.equal((await get(url)).status, 200, url)
  }
}

/** The gateway's own lines, not its embedded content API's or internal listener's. */
const publicPort = (line: string): boolean => !line.includes('"listener"')

const PROBE_PATHS = /\/(healthz|readyz)\b/

t.test('in a terminal: one line per request with method, path, status, X-Cache, time and request id', async (t) => {
  const services = await startServices(t, { LOG_FORMAT: 'pretty' })
  await probeAll(t, services)
  const asked: [id: string, path: string, answer: Answer][] = []
  // A page rendered (with a token in its address), then the same page from the page cache.
  for (const [id, path] of [['pretty-render-1', `/over-ons?token=${SECRET_TOKEN}`], ['pretty-hit-1', '/over-ons']] as const) {
    asked.push([id, path, await get(`${services.url}${path}`, id)])
  }
  t.equal(asked[1]?.[2].cache, 'HIT', 'the second came from the page cache')
  for (const [id, path, answer] of asked) {
    const line = await lineSeen(services.gateway, (line) => line.includes(id) && publicPort(line))
    const shownPath = path.replace(SECRET_TOKEN, '[Redacted]')
    t.match(line, `GET ${shownPath} ${answer.status} ${answer.cache} `, `${id}: method, path, status and X-Cache`)
    t.match(line, new RegExp(` \\d+(\\.\\d+)?ms \\[${id}\\]`), `${id}: the time and the request id`)
    t.equal(lines(services.gateway).filter((line) => line.includes(id) && publicPort(line)).length, 1, `${id}: one line`)
  }
  const rendered = await lineSeen(services.renderer, (line) => line.includes('pretty-render-1'))
  t.match(rendered, / INFO \(renderer\): POST \/over-ons 200 \d+(\.\d+)?ms \[pretty-render-1\]/, "the renderer's line of the same request")
  t.equal(lines(services.renderer).filter((line) => line.includes('pretty-render-1')).length, 1, 'one line in the renderer')
  const all = [...lines(services.gateway), ...lines(services.renderer)]
  t.notOk(all.some((line) => line.includes('incoming request')), 'no second line per request')
  t.notOk(all.some((line) => line.startsWith('{')), 'no JSON lines')
  t.notOk(all.some((line) => line.includes(SECRET_TOKEN)), 'the token is nowhere')
  t.notOk(all.some((line) => PROBE_PATHS.test(line)), 'no probe at info')

  t.equal(await services.gateway.stop('SIGTERM'), 0)
  t.ok(lines(services.gateway).some((line) => line.includes('INFO (gateway): pages in flight done; closing')), 'the shutdown is in the log')
})

t.test('anywhere else: JSON lines with the request id, the request and its answer', async (t) => {
  const services = await startServices(t, { LOG_FORMAT: 'json' })
  await probeAll(t, services)
  const answer = await get(`${services.url}/over-ons?token=${SECRET_TOKEN}`, 'json-token-1')
  await lineSeen(services.gateway, (line) => line.includes('"json-token-1"') && line.includes('request completed') && publicPort(line))
  const parsed = lines(services.gateway).map((line) => JSON.parse(line) as Record<string, unknown>)
  const completed = parsed.filter((line) => line.requestId === 'json-token-1' && line.msg === 'request completed' && line.listener === undefined)
  t.equal(completed.length, 1)
  t.match(completed[0], {
    level: 30,
    name: 'gateway',
    req: { method: 'GET', url: '/over-ons?token=[Redacted]' },
    res: { statusCode: answer.status },
    cache: answer.cache,
    responseTime: Number,
  })
  t.equal(parsed.filter((line) => line.requestId === 'json-token-1' && line.listener === undefined).length, 1, 'one line per request: no incoming request line at info')
  // The key in another encoding reads as `token` to the query parser: redacted as well.
  await get(`${services.url}/over-ons?%74oken=${SECRET_TOKEN}&tok%65n=${SECRET_TOKEN}`, 'json-token-2')
  // A long address costs its sender, not the disk: a prefix and its length, on a cache hit too.
  const longPath = `/over-ons?q=${'x'.repeat(7000)}`
  await get(`${services.url}${longPath}`, 'json-long-1')
  const longLines = await Promise.all(['json-token-2', 'json-long-1'].map((id) => lineSeen(services.gateway, (line) => line.includes(`"${id}"`) && line.includes('request completed') && publicPort(line))))
  const long = lines(services.gateway).filter((line) => line.includes('"json-long-1"'))
  t.equal(long.length, 1, 'the long address: one line')
  t.ok(Buffer.byteLength(long.join('\n')) < 600, `the long address: a short line (${Buffer.byteLength(long.join('\n'))} bytes for a ${longPath.length}-character address)`)
  t.match(JSON.parse(longLines[1] ?? '{}'), { req: { url: longPath.slice(0, 200), urlLength: longPath.length } })
  const all = [...lines(services.gateway), ...lines(services.renderer)]
  for (const line of lines(services.renderer)) JSON.parse(line)
  t.notOk(all.some((line) => line.includes(SECRET_TOKEN)), 'the token is nowhere')
  t.notOk(all.some((line) => PROBE_PATHS.test(line)), 'no probe at info')
})

t.test('LOG_LEVEL=debug: the probes are there', async (t) => {
  const services = await startServices(t, { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' })
  const probe = (started: Started, url: string) =>
    lineSeen(started, (line) => line.includes('request completed') && line.includes(`"url":"${url}"`)).then((line) => JSON.parse(line) as Record<string, unknown>)
  const [rendererProbe] = await Promise.all([probe(services.renderer, '/healthz'), probeAll(t, services)])
  t.equal(rendererProbe.level, 20, "the gateway's probe of the renderer, at debug")
  t.equal((await probe(services.gateway, '/healthz')).level, 20, 'the public /healthz')
  t.match(await probe(services.gateway, '/readyz'), { level: 20, listener: 'internal' }, 'the internal /readyz')
})

// Once the worker runs, lines logged just before process.exit are in it, not yet on the terminal.
const EXITING_RIGHT_AFTER_LOGGING = `
import Fastify from 'fastify'
import { loggingOptions } from './shared/logging.ts'
const app = Fastify(loggingOptions({ service: 'exiting', level: 'info', format: 'pretty' }))
app.log.info('worker started')
process.stdin.once('data', () => {
  for (let i = 1; i <= 1000; i++) app.log.info('line ' + i)
  process.exit(0)
})
`

t.test('pretty lines logged right before the process exits reach the terminal', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', EXITING_RIGHT_AFTER_LOGGING], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => child.kill('SIGKILL'))
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
    if (output.includes('worker started') && child.stdin.writable) child.stdin.end('go\n')
  })
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
  t.match(stripVTControlCharacters(output), /INFO \(exiting\): line 1000\n/)
})

t.test('a crash still reaches the terminal', async (t) => {
  const taken = createServer()
  taken.listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const address = taken.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const gateway = startProcess(`${DIST}/gateway.js`, { HOST: '127.0.0.1', PORT: String(port), INTERNAL_PORT: '0', LOG_FORMAT: 'pretty' })
  t.teardown(() => gateway.stop('SIGKILL'))
  const [code] = gateway.child.exitCode === null ? await once(gateway.child, 'exit') : [gateway.child.exitCode]
  t.equal(code, 1)
  t.match(gateway.output(), /EADDRINUSE/, "Node's report of the crash")
  t.ok(lines(gateway).some((line) => /INFO \(gateway\): Server listening at .*"listener":"embedded-cms"/.test(line)), 'and the pretty line logged just before it')
})

t.test('LOG_FORMAT: json, pretty, or by the terminal', async (t) => {
  t.equal(readLogFormat({}, true), 'pretty')
  t.equal(readLogFormat({}, false), 'json')
  t.equal(readLogFormat({ LOG_FORMAT: 'json' }, true), 'json')
  t.equal(readLogFormat({ LOG_FORMAT: 'Pretty' }, false), 'pretty')
  t.throws(() => readLogFormat({ LOG_FORMAT: 'fancy' }, false), ConfigError)
})
