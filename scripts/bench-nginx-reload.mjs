// What an `nginx -s reload` costs the requests in flight, measured on loopback: the shipped deploy/nginx.conf in
// front of one gateway and renderer (dist/, embedded content), a load of CONCURRENCY clients over https, and
// RELOADS reloads (SIGHUP to nginx's master) while it runs, once with HTTP/1.1 keep-alive connections and once with
// HTTP/2. Every request that fails is counted with its error; nothing is retried (a browser retries a GET that failed
// on a reused connection; this load does not). Run with tsx after `npm run build`:
//   node --import tsx scripts/bench-nginx-reload.mjs
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { startSystem } from '../test/helpers/system.ts'
import { startDeployNginx } from './deploy-nginx.mjs'

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8)
const RELOADS = Number(process.env.RELOADS ?? 3)
const PATHS = ['/', '/over-ons', '/topical']

async function round(url, h2, reload) {
  const agent = new Agent({ allowH2: h2, connect: { rejectUnauthorized: false }, connections: CONCURRENCY })
  const tally = { sent: 0, ok: 0, failed: 0, errors: {}, statuses: {} }
  let running = true
  const worker = async () => {
    while (running) {
      const path = PATHS[tally.sent++ % PATHS.length]
      try {
        const response = await request(`${url}${path}`, { dispatcher: agent, headersTimeout: 30_000 })
        await response.body.dump()
        if (response.statusCode === 200) tally.ok++
        else {
          tally.failed++
          tally.statuses[response.statusCode] = (tally.statuses[response.statusCode] ?? 0) + 1
        }
      } catch (error) {
        tally.failed++
        tally.errors[error.code ?? error.message] = (tally.errors[error.code ?? error.message] ?? 0) + 1
      }
    }
  }
  const workers = Array.from({ length: CONCURRENCY }, worker)
  await pause(2000)
  for (let i = 0; i < RELOADS; i++) {
    reload()
    await pause(3000)
  }
  running = false
  await Promise.all(workers)
  await agent.close()
  return tally
}

const dir = mkdtempSync(join(tmpdir(), 'reload-tls-'))
const tls = { certificate: join(dir, 'certificate.pem'), key: join(dir, 'key.pem') }
spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', tls.key, '-out', tls.certificate])
const system = await startSystem({ TRUST_PROXY: '1', CLIENT_WORK_BUDGET: '1000000' })
const nginx = await startDeployNginx({ variant: 'tls', gatewayUrl: system.url, tls })
const master = Number(readFileSync(join(nginx.dir, 'nginx.pid'), 'utf8'))
const reload = () => process.kill(master, 'SIGHUP')
const url = `https://127.0.0.1:${nginx.tlsPort}`
try {
  for (const h2 of [false, true]) {
    const tally = await round(url, h2, reload)
    console.log(`${h2 ? 'HTTP/2' : 'HTTP/1.1 keep-alive'}: ${RELOADS} reloads, ${tally.failed} failed of ${tally.sent} (errors ${JSON.stringify(tally.errors)}, statuses ${JSON.stringify(tally.statuses)})`)
  }
} finally {
  await nginx.close()
  await system.close()
  rmSync(dir, { recursive: true, force: true })
}
