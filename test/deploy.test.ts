import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { parse } from 'yaml'
import { SERVICE_NODE_ARGS } from '../scripts/service-node-args.mjs'
import { freePort } from './helpers/ports.ts'
import { ROOT, waitForHttp } from './helpers/processes.ts'

interface ComposeService {
  build?: unknown
  image?: string
  command?: string[]
  depends_on?: Record<string, { condition?: string }> | string[]
  healthcheck?: { test?: string[] }
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, ComposeService> }
const services = compose.services

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
function run(command: string[], env: Record<string, string>): { child: ChildProcess; exited: Promise<Exited> } {
  const [program, ...args] = command
  const child = spawn(program === 'node' ? process.execPath : (program ?? ''), args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve({ code, output }))) }
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
  const rendererPort = await freePort()
  // Nothing listens on the gateway's port: the check must find the renderer's.
  const env = { NODE_ENV: 'production', RENDERER_HOST: '127.0.0.1', RENDERER_PORT: String(rendererPort), PORT: String(await freePort()), GATEWAY_URL: 'http://127.0.0.1:9' }
  const renderer = run(services.renderer?.command ?? [], env)
  t.teardown(() => {
    if (renderer.child.exitCode === null) renderer.child.kill('SIGKILL')
  })
  await waitForHttp(`http://127.0.0.1:${rendererPort}/healthz`)
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

t.test('nginx with the compose configuration answers its own health check without a gateway', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lb-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  const shipped = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8')
  t.match(shipped, /^\s*listen 80;$/m, 'the shipped configuration listens on 80')
  // The same configuration on a loopback port, with its files in a folder of the test's own.
  const config = shipped
    .replace(/^\s*listen 80;$/m, `listen 127.0.0.1:${port};`)
    .replace(/^pid .*$/m, `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;`)
    .replace(/^http \{$/m, `http {\n  client_body_temp_path ${dir};\n  proxy_temp_path ${dir};\n  fastcgi_temp_path ${dir};\n  uwsgi_temp_path ${dir};\n  scgi_temp_path ${dir};`)
  writeFileSync(join(dir, 'nginx.conf'), config)
  const nginx = run(['/usr/sbin/nginx', '-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {})
  t.teardown(async () => {
    nginx.child.kill('SIGQUIT')
    await nginx.exited
  })
  await waitForHttp(`http://127.0.0.1:${port}/nginx-health`)
  const response = await request(`http://127.0.0.1:${port}/nginx-health`)
  t.equal(response.statusCode, 200)
  t.equal(await response.body.text(), 'ok\n')
  const check = services.lb?.healthcheck?.test ?? []
  t.ok(check.join(' ').includes('http://127.0.0.1/nginx-health'), 'compose checks that location')
})

// Issue 33: the same site as a Swarm stack (docker-stack.yml), rolling without downtime; the counts, secrets and
// network bindings in both files. scripts/test-containers.mjs runs the stack itself (npm run test:containers).
interface DeployedService extends ComposeService {
  environment?: Record<string, string>
  networks?: Record<string, { aliases?: string[] } | null> | string[]
  secrets?: string[]
  ports?: Array<{ mode?: string } | string>
  healthcheck?: { test?: string[]; interval?: string; start_period?: string }
  deploy?: { replicas?: number; endpoint_mode?: string; update_config?: Record<string, unknown>; rollback_config?: Record<string, unknown> }
}
const stack = parse(readFileSync(join(ROOT, 'docker-stack.yml'), 'utf8'), { merge: true }) as { services: Record<string, DeployedService>; secrets?: Record<string, unknown> }
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
    t.equal(service?.image, composed.services[name]?.image, `${name}: the image by the same tag as compose`)
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
