import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { type AddressInfo, type Socket, createServer } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { parse } from 'yaml'
import { NGINX, shippedNginxConf, startDeployNginx } from '../scripts/deploy-nginx.mjs'
import { SERVICE_NODE_ARGS } from '../scripts/service-node-args.mjs'
import { loadGatewayConfig } from '../gateway/config.ts'
import { LIVE_UPDATES_PATH } from '../shared/constants.ts'
import { REFUSED_URL, freePort, retryOnAddressInUse } from './helpers/ports.ts'
import { ROOT, listening, waitForHttp } from './helpers/processes.ts'
import { type RawWebSocket, openRawWebSocket } from './helpers/raw-websocket.ts'
import { startSystem } from './helpers/system.ts'

interface ComposeService {
  build?: unknown
  image?: string
  command?: string[]
  depends_on?: Record<string, { condition?: string }> | string[]
  healthcheck?: { test?: string[] }
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, ComposeService> }
const services = compose.services
const stack = parse(readFileSync(join(ROOT, 'docker-stack.yml'), 'utf8'), { merge: true }) as { services: Record<string, DeployedService>; secrets?: Record<string, unknown> }

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
/** The Dockerfile's final stage, with continued lines joined. */
const finalStage = (() => {
  const text = dockerfile.replace(/\\\n\s*/g, ' ')
  return text.slice(text.lastIndexOf('\nFROM '))
})()

/** The exec form (a JSON array) of an instruction of the final stage, e.g. `CMD [...]` or `HEALTHCHECK ... CMD [...]`. */
function execForm(instruction: 'CMD' | 'HEALTHCHECK'): string[] {
  const line = finalStage.split('\n').find((candidate) => candidate.startsWith(`${instruction} `))
  const json = line?.match(/CMD (\[.*\])\s*$/)?.[1]
  if (!json) throw new Error(`the final stage has no ${instruction} in exec form`)
  return JSON.parse(json) as string[]
}

interface Exited {
  code: number | null
  output: string
}

/** Runs an exec-form command from the repository root the way the image would (its `node` is this test's Node). */
function run(command: string[], env: Record<string, string>): { child: ChildProcess; exited: Promise<Exited>; output: () => string } {
  const [program, ...args] = command
  const child = spawn(program === 'node' ? process.execPath : (program ?? ''), args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve({ code, output }))), output: () => output }
}

t.test('node itself is process 1 in the image and in compose, never npm', async (t) => {
  t.same(execForm('CMD').slice(0, 1), ['node'], 'the image starts node directly')
  t.match(execForm('CMD').at(-1), /^dist\/gateway\.js$/, 'the gateway by default')
  t.same(services.gateway?.command?.slice(0, 1), ['node'])
  t.equal(services.gateway?.command?.at(-1), 'dist/gateway.js')
  t.same(services.renderer?.command?.slice(0, 1), ['node'])
  t.equal(services.renderer?.command?.at(-1), 'dist/renderer.js')
})

t.test("the image and compose start each service with the Node options npm start and the bench use", async (t) => {
  t.same(execForm('CMD').slice(1, -1), SERVICE_NODE_ARGS, 'the image')
  t.same(services.gateway?.command?.slice(1, -1), SERVICE_NODE_ARGS, "compose's gateway")
  t.same(services.renderer?.command?.slice(1, -1), SERVICE_NODE_ARGS, "compose's renderer")
  t.match(dockerfile, `docker run IMAGE node ${SERVICE_NODE_ARGS.join(' ')} dist/renderer.js`, "the Dockerfile's note on starting the renderer")
})

t.test('the app files belong to root: the service user can read its code but not change it', async (t) => {
  t.notMatch(finalStage, /--chown/, 'nothing is copied as the service user')
  t.notMatch(finalStage, /\bchown\b|\bchmod\b/, 'and nothing handed over afterwards')
  const lines = finalStage.split('\n')
  const user = lines.findIndex((line) => line.startsWith('USER '))
  t.equal(lines[user], 'USER node', 'the service runs as node')
  const lastCopy = lines.length - 1 - [...lines].reverse().findIndex((line) => line.startsWith('COPY '))
  t.ok(lastCopy < user, 'every file is in place before the user changes')
})

t.test('compose builds one image and runs both services from it', async (t) => {
  t.same(Object.keys(services).filter((name) => services[name]?.build !== undefined), ['gateway'], 'one build')
  t.ok(services.gateway?.image, 'the built image has a name')
  t.equal(services.renderer?.image, services.gateway?.image, 'the renderer runs that image')
})

t.test('Redis and nginx have health checks, and every service waits for what it needs to be healthy', async (t) => {
  for (const name of ['redis', 'lb']) t.ok(services[name]?.healthcheck?.test?.length, `${name} has a health check`)
  const waits = (name: string) => services[name]?.depends_on
  t.same(waits('gateway'), { renderer: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
  t.same(waits('lb'), { gateway: { condition: 'service_healthy' } })
})

t.test('the renderer, started as compose starts it, passes the image\'s health check, closes itself on SIGTERM and then fails it', async (t) => {
  // The health check reads RENDERER_PORT, so the port is named: the renderer starts again on another if it was taken.
  // Nothing listens on the gateway's port: the check must find the renderer's.
  const { renderer, rendererPort, env } = await retryOnAddressInUse(async () => {
    const rendererPort = await freePort()
    const env = { NODE_ENV: 'production', RENDERER_HOST: '127.0.0.1', RENDERER_PORT: String(rendererPort), PORT: String(new URL(REFUSED_URL).port), GATEWAY_URL: REFUSED_URL }
    const renderer = run(services.renderer?.command ?? [], env)
    t.teardown(() => {
      if (renderer.child.exitCode === null) renderer.child.kill('SIGKILL')
    })
    await listening(renderer, 'renderer')
    return { renderer, rendererPort, env }
  })
  const healthy = await run(execForm('HEALTHCHECK'), env).exited
  t.equal(healthy.code, 0, 'the health check passes')

  renderer.child.kill('SIGTERM')
  const { code, output } = await renderer.exited
  t.equal(code, 0, 'node exits cleanly on SIGTERM')
  t.match(output, 'SIGTERM received', 'the renderer got the signal itself and closed')
  await t.rejects(request(`http://127.0.0.1:${rendererPort}/healthz`), 'nothing still listens')
  const gone = await run(execForm('HEALTHCHECK'), env).exited
  t.equal(gone.code, 1, 'the health check fails once it is gone')
})

t.test("the services' health check is bash, not a Node process: the image's, compose's and the stack's are one; a service that takes the connection and never answers fails it", async (t) => {
  const check = execForm('HEALTHCHECK')
  t.same(check, ['bash', 'scripts/healthcheck.sh'], 'the image runs the script with bash')
  t.match(finalStage, /^COPY scripts\/healthcheck\.sh \.\/scripts\/healthcheck\.sh$/m, 'which the image holds, where its working directory finds it')
  for (const name of ['gateway', 'renderer']) t.same(services[name]?.healthcheck?.test, ['CMD', ...check], `compose's ${name}`)
  for (const name of ['gateway', 'renderer']) t.same(stack.services[name]?.healthcheck?.test, ['CMD', ...check], `the stack's ${name}`)

  // Hung: the kernel takes the connection, the process never answers (docker pause, a blocked event loop).
  const hung = await silentListener(t)
  // Without the script's own read timeout this would wait for ever (Docker would kill it at its timeout).
  const answer = await run(check, { PORT: String(hung.port), RENDERER_PORT: new URL(REFUSED_URL).port }).exited
  t.equal(answer.code, 1, 'a hung service fails the check: it gives up waiting for the answer by itself')
  t.equal(hung.taken(), 1, 'the check had connected and waited for an answer')
})

t.test('nginx answers its own health check on port 80, IPv4 and IPv6, without a gateway, in both front doors', async (t) => {
  for (const variant of ['tls', 'behind-lb'] as const) {
    const shipped = shippedNginxConf(variant)
    t.match(shipped, /^\s*listen 80;$/m, `${variant}: the shipped configuration listens on 80`)
    t.match(shipped, /^\s*listen \[::\]:80;$/m, `${variant}: on IPv6 too`)
  }
  // The configuration behind a load balancer on a loopback port, with its files in a folder of the test's own
  // (the TLS one: test/deploy-tls.test.ts).
  const nginx = await startDeployNginx()
  t.teardown(() => nginx.close())
  const response = await request(`${nginx.url}/nginx-health`)
  t.equal(response.statusCode, 200)
  t.equal(await response.body.text(), 'ok\n')
  const check = services.lb?.healthcheck?.test ?? []
  t.ok(check.join(' ').includes('http://127.0.0.1/nginx-health'), 'compose checks that location')
})

/** A directive's value in the location block for `location` of nginx-locations.conf (inlined in a server block). */
function locationDirective(config: string, location: string, directive: string): string[] {
  const block = config.slice(config.indexOf(`location ${location} {`))
  return [...block.slice(0, block.indexOf('\n    }')).matchAll(new RegExp(`^\\s*${directive} ([^;]+);`, 'gm'))].map((match) => match[1] ?? '')
}

t.test("nginx's bounds on upgraded sockets fit its worker connections and the gateway's pings", async (t) => {
  const shipped = shippedNginxConf('behind-lb')
  const workerConnections = Number(/worker_connections (\d+);/.exec(shipped)?.[1])
  const liveLimits = Object.fromEntries(locationDirective(shipped, `= ${LIVE_UPDATES_PATH}`, 'limit_conn').map((value) => value.split(/\s+/)))
  t.ok(Number(liveLimits.live_per_client) >= 1, 'a limit per client address')
  // Each proxied socket holds two of a worker's connections (the client's and the gateway's).
  t.ok(Number(liveLimits.live_total) * 2 <= workerConnections / 2, 'in all, at most half of one worker\'s connections')
  t.match(shipped, /limit_conn_zone live zone=live_total:/, 'one key for every request, so every socket counts')
  const readTimeout = locationDirective(shipped, `= ${LIVE_UPDATES_PATH}`, 'proxy_read_timeout')[0] ?? ''
  const readTimeoutMs = Number(/^(\d+)s$/.exec(readTimeout)?.[1]) * 1000
  const pingMs = loadGatewayConfig({}).live.pingIntervalMs
  t.ok(readTimeoutMs > pingMs && readTimeoutMs <= 2 * pingMs, `proxy_read_timeout ${readTimeout} is a little longer than the gateway's ping (${pingMs} ms)`)
  t.same(locationDirective(shipped, '/', 'proxy_set_header').filter((value) => value.startsWith('Upgrade')), [], 'pages are never upgraded')

  const tested = spawnSync(NGINX, ['-V'], { encoding: 'utf8' })
  t.comment(`checked with ${tested.stderr.split('\n')[0]}; the image's nginx:1.27 has every directive used (limit_conn_zone, limit_conn, limit_conn_status, limit_conn_log_level)`)
})

t.test('through nginx, sockets over its limits are refused while pages are still served', async (t) => {
  // The gateway's own bounds are wider, and its sockets wait for connection_init longer than the test takes: nginx refuses here.
  const system = await startSystem({ TRUST_PROXY: '1', LIVE_INIT_TIMEOUT_MS: '60000', LIVE_MAX_SOCKETS_PER_CLIENT: '100' })
  t.teardown(() => system.close())
  const nginx = await startDeployNginx({
    gatewayUrl: system.url,
    edit: (config) => config.replace(/limit_conn live_per_client \d+;/, 'limit_conn live_per_client 2;').replace(/limit_conn live_total \d+;/, 'limit_conn live_total 3;'),
  })
  t.teardown(() => nginx.close())
  const sockets: RawWebSocket[] = []
  t.teardown(() => sockets.forEach((socket) => socket.destroy()))
  const open = async (localAddress: string) => {
    const socket = await openRawWebSocket(nginx.url, LIVE_UPDATES_PATH, { localAddress })
    sockets.push(socket)
    return socket.status
  }
  t.equal(await open('127.0.0.1'), 101)
  t.equal(await open('127.0.0.1'), 101)
  t.equal(await open('127.0.0.1'), 429, "the client's third socket is refused by nginx")
  t.match(nginx.errorLog(), 'limiting connections by zone "live_per_client"')
  t.equal(await open('127.0.0.2'), 101, 'another client connects')
  t.equal(await open('127.0.0.3'), 429, 'past the total nobody does')
  t.match(nginx.errorLog(), 'limiting connections by zone "live_total"')
  for (const localAddress of ['127.0.0.1', '127.0.0.3']) {
    const page = await request(`${nginx.url}/over-ons`, { dispatcher: new Agent({ connect: { localAddress } }) })
    t.equal(page.statusCode, 200, `a page for ${localAddress} meanwhile`)
    await page.body.dump()
  }
})

// Issue 33: the same site as a Swarm stack (docker-stack.yml), rolling without downtime; the counts, secrets and
// network bindings in both files. scripts/test-containers.mjs runs the stack itself (npm run test:containers).
interface DeployedService extends ComposeService {
  environment?: Record<string, string>
  networks?: Record<string, { aliases?: string[] } | null> | string[]
  secrets?: string[]
  ports?: Array<{ mode?: string } | string>
  healthcheck?: { test?: string[]; interval?: string; start_period?: string }
  deploy?: {
    replicas?: number
    endpoint_mode?: string
    update_config?: Record<string, unknown>
    rollback_config?: Record<string, unknown>
    restart_policy?: { condition?: string }
    resources?: { limits?: { cpus?: string; memory?: string }; reservations?: { cpus?: string; memory?: string } }
  }
  logging?: { driver?: string; options?: Record<string, string> }
}
const composed = compose as unknown as { services: Record<string, DeployedService>; secrets?: Record<string, unknown> }

t.test('the renderer and gateway counts are in both files, not on the command line', async (t) => {
  for (const file of [composed, stack]) {
    t.equal(file.services.gateway?.deploy?.replicas, 2)
    t.equal(file.services.renderer?.deploy?.replicas, 3)
  }
})

t.test('the stack rolls gateways and renderers one at a time, the new task healthy first, and rolls back a failure', async (t) => {
  for (const name of ['gateway', 'renderer']) {
    const service = stack.services[name]
    t.match(service?.deploy?.update_config, { parallelism: 1, order: 'start-first', failure_action: 'rollback' }, `${name} update_config`)
    t.ok(service?.healthcheck?.test?.length, `${name}: the update waits on a health check`)
    // On a cluster the repository is a registry's (IMAGE_REPOSITORY); by default the image compose builds.
    t.equal(service?.image?.replace('${IMAGE_REPOSITORY:-havenborg-website}', 'havenborg-website'), composed.services[name]?.image, `${name}: by default the image compose builds, by the same tag`)
    t.match(service?.image, /:\$\{IMAGE_TAG/, 'a tag chosen at deploy')
  }
  // No IPVS on the test machines: names resolve to every task, and nginx's port is published on the node.
  for (const name of Object.keys(stack.services)) t.equal(stack.services[name]?.deploy?.endpoint_mode, 'dnsrr', `${name}: dnsrr`)
  t.match(stack.services.lb?.ports, [{ mode: 'host' }])
})

t.test('both files give RENDER_SECRET and PURGE_SECRET as secret files, never as a variable with an empty default', async (t) => {
  for (const file of [composed, stack]) {
    t.ok(file.secrets?.render_secret && file.secrets?.purge_secret, 'secrets declared')
    t.same(file.services.gateway?.secrets, ['render_secret', 'purge_secret'])
    t.same(file.services.renderer?.secrets, ['render_secret'])
    t.equal(file.services.gateway?.environment?.RENDER_SECRET_FILE, '/run/secrets/render_secret')
    t.equal(file.services.gateway?.environment?.PURGE_SECRET_FILE, '/run/secrets/purge_secret')
    t.equal(file.services.renderer?.environment?.RENDER_SECRET_FILE, '/run/secrets/render_secret')
    t.notOk('RENDER_SECRET' in (file.services.gateway?.environment ?? {}) || 'RENDER_SECRET' in (file.services.renderer?.environment ?? {}))
  }
  t.match(finalStage, /REQUIRE_RENDER_SECRET=true/, 'the image refuses to start without the secret')
})

t.test('the gateway binds each port to its address on the networks that should reach it, by their subnets', async (t) => {
  for (const file of [composed, stack] as Array<typeof composed & { networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } }> }>) {
    const subnet = (network: string) => file.networks?.[network]?.ipam?.config?.[0]?.subnet
    const gateway = file.services.gateway
    t.equal(gateway?.environment?.HOST, `127.0.0.1,@${subnet('edge')},@${subnet('internal')}`, 'public port: loopback, edge, internal')
    t.equal(gateway?.environment?.INTERNAL_HOST, `@${subnet('scrape')}`, 'internal listener: scrape only')
    t.same(gateway?.networks, ['edge', 'internal', 'scrape'])
    t.same(file.services.renderer?.networks, ['internal'], 'the renderer is on internal only')
  }
})

t.test('health checks are quick while starting: a start_period and an interval of seconds in both files', async (t) => {
  for (const file of [composed, stack]) {
    for (const name of ['gateway', 'renderer', 'redis', 'lb']) {
      const check = file.services[name]?.healthcheck
      t.ok(check?.start_period, `${name} start_period`)
      t.ok(Number.parseInt(check?.interval ?? '99', 10) <= 3, `${name} interval ${check?.interval}`)
    }
  }
})

// Issue 38: limits and logs. Every service of the stack has memory and CPU limits and reservations, a Node heap
// inside its limit, a log that rotates, and a health check Swarm acts on (restart_policy any).
t.test('every service in the stack has limits, reservations, rotated logs and a restart policy; the heap fits the limit', async (t) => {
  const megabytes = (value: string | undefined): number => {
    const match = /^(\d+)([MG])$/.exec(value ?? '')
    return match ? Number(match[1]) * (match[2] === 'G' ? 1024 : 1) : Number.NaN
  }
  for (const [name, service] of Object.entries(stack.services)) {
    const { limits, reservations } = service.deploy?.resources ?? {}
    t.ok(Number(limits?.cpus) > 0 && Number(reservations?.cpus) > 0, `${name}: CPU limit and reservation`)
    t.ok(Number(reservations?.cpus) <= Number(limits?.cpus), `${name}: reserved CPU within the limit`)
    t.ok(megabytes(reservations?.memory) > 0 && megabytes(reservations?.memory) <= megabytes(limits?.memory), `${name}: memory reserved within the limit`)
    t.match(service.logging, { driver: 'json-file', options: { 'max-size': /^\d+m$/, 'max-file': /^\d+$/ } }, `${name}: json-file, rotated`)
    t.equal(service.deploy?.restart_policy?.condition, 'any', `${name}: a task that stops or is found unhealthy is replaced`)
    if (name === 'gateway' || name === 'renderer') {
      const heap = Number(/--max-old-space-size=(\d+)/.exec(service.environment?.NODE_OPTIONS ?? '')?.[1])
      t.ok(heap > 0 && heap <= megabytes(limits?.memory) * 0.8, `${name}: the heap (${heap} MB) follows the limit (${limits?.memory})`)
    }
  }
  // The caches' bounds as a stack deployed without overrides sets them (`${NAME:-default}`), else the services' defaults.
  const gateway = stack.services.gateway
  const deployed = Object.fromEntries(Object.entries(gateway?.environment ?? {}).filter(([key]) => key.endsWith('CACHE_MAX_BYTES')).map(([key, value]) => [key, /^\$\{[A-Z_]+:-(.*)\}$/.exec(value)?.[1] ?? value]))
  const { cache } = loadGatewayConfig(deployed)
  const cachesMb = (cache.maxBytes + cache.pageMaxBytes + cache.apiMaxBytes) / 2 ** 20
  // Measured without full caches: 212 MB at peak under 16 concurrent fresh renders (docs/operations.md#limits-and-logs).
  t.ok(cachesMb + 212 <= megabytes(gateway?.deploy?.resources?.limits?.memory), `gateway: its caches (${cachesMb} MiB) and its peak fit its memory limit`)
})

/** A listener that takes connections and never answers: a gateway cut from its network, or paused. Its port, and the connections it took. */
async function silentListener(t: Test): Promise<{ port: number; taken: () => number }> {
  const sockets = new Set<Socket>()
  let taken = 0
  const server = createServer((socket) => {
    taken++
    sockets.add(socket)
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { port: (server.address() as AddressInfo).port, taken: () => taken }
}

t.test('through nginx, an asset asked of a gateway that stopped answering is answered by the next gateway', async (t) => {
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const { port: silent } = await silentListener(t)
  const page = await (await request(`${system.url}/`)).body.text()
  const asset = /(\/assets\/[^"']+\.js)/.exec(page)?.[1]
  t.ok(asset, 'the page names a script')
  // Two gateways by name, the silent one first in turn (nginx's round robin starts at the first server).
  const nginx = await startDeployNginx({
    edit: (config) =>
      config
        .replace(/^(\s*)set \$gateways [^;]+;$/m, '')
        .replaceAll('proxy_pass $gateways;', 'proxy_pass http://gateways;')
        .replace(/^http \{$/m, `http {\n  upstream gateways { server 127.0.0.1:${silent}; server ${new URL(system.url).host}; }`),
  })
  t.teardown(() => nginx.close())
  // The client gives up long before nginx's read timeout for pages (60 s): only the asset's short one answers in time.
  for (let i = 0; i < 2; i++) {
    const response = await request(`${nginx.url}${asset}`, { headersTimeout: 30_000 })
    await response.body.dump()
    t.equal(response.statusCode, 200, `asset request ${i + 1}: 200 from the gateway that answers`)
  }
})

t.test('the routing-mesh variant runs two nginx tasks behind the published port, each replaced start-first', async (t) => {
  const mesh = parse(readFileSync(join(ROOT, 'docker-stack.mesh.yml'), 'utf8')) as { services: Record<string, DeployedService> }
  t.same(Object.keys(mesh.services), ['lb'], 'it changes the load balancer only')
  const lb = mesh.services.lb
  t.equal(lb?.deploy?.replicas, 2)
  t.equal(lb?.deploy?.endpoint_mode, 'vip')
  t.match(lb?.deploy?.update_config, { parallelism: 1, order: 'start-first', failure_action: 'rollback' })
  t.match(lb?.ports, [{ target: 80, mode: 'ingress' }])
})
