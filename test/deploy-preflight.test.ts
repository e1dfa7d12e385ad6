// scripts/swarm-preflight.sh: the checks before a deploy, where a failure would otherwise be silent (a mesh stack on
// a kernel without IPVS deployed, reported healthy, and refused every connection). Run against a folder of the
// test's own and a stand-in for `docker` that answers what a swarm manager would.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ROOT } from './helpers/processes.ts'

const PREFLIGHT = join(ROOT, 'scripts/swarm-preflight.sh')
const LIVE = { SITE_URL: 'https://www.havenborg.example', CRAFT_API_URL: 'https://cms.havenborg.example/api' }

/** A working copy with the secrets and a certificate, a stand-in docker saying `swarm`, a /proc/modules, an ip_vs file or not. */
function node(t: Test, { swarm = 'active true', ipvs = true }: { swarm?: string; ipvs?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'preflight-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'deploy/secrets'), { recursive: true })
  mkdirSync(join(dir, 'deploy/tls'), { recursive: true })
  for (const name of ['render_secret', 'purge_secret']) writeFileSync(join(dir, 'deploy/secrets', name), 'x'.repeat(32))
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30', '-subj', '/CN=www.havenborg.example', '-keyout', join(dir, 'deploy/tls/key.pem'), '-out', join(dir, 'deploy/tls/certificate.pem')], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(made.stderr)
  writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho '${swarm}'\n`)
  chmodSync(join(dir, 'docker'), 0o755)
  writeFileSync(join(dir, 'modules'), ipvs ? 'ip_vs 180224 0 - Live 0x0\nnf_conntrack 1 0 - Live 0x0\n' : 'nf_conntrack 1 0 - Live 0x0\n')
  writeFileSync(join(dir, 'dockerd.log'), 'level=info msg="Loading containers: done."\n')
  return dir
}

function preflight(dir: string, variant: string, env: Record<string, string> = {}) {
  const run = spawnSync('sh', [PREFLIGHT, variant], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, DOCKER: join(dir, 'docker'), IPVS_PROC: join(dir, 'no-such-file'), MODULES_PROC: join(dir, 'modules'), DOCKERD_LOG: join(dir, 'dockerd.log'), ...LIVE, ...env },
  })
  return { code: run.status, out: run.stdout + run.stderr }
}

t.test('a manager with IPVS, the secrets, a certificate and its key, and the live settings: passes, for each variant', async (t) => {
  const dir = node(t)
  for (const variant of ['host', 'mesh']) {
    const run = preflight(dir, variant)
    t.equal(run.code, 0, run.out)
    t.match(run.out, `preflight passed (${variant})`)
  }
  t.equal(preflight(dir, 'behind-lb', { TRUSTED_LB_ADDRESSES: '10.0.0.0/24' }).code, 0, 'behind a load balancer')
})

t.test('the mesh variant is refused on a kernel without IPVS, or where dockerd said its load balancing will not work', async (t) => {
  const without = preflight(node(t, { ipvs: false }), 'mesh')
  t.equal(without.code, 1)
  t.match(without.out, /REFUSED: no IPVS in this node's kernel .* the routing mesh cannot work/)
  t.equal(preflight(node(t, { ipvs: false }), 'host').code, 0, 'host-mode ports do not need it')

  const dir = node(t)
  writeFileSync(join(dir, 'dockerd.log'), 'level=error msg="Could not initialize IPVS: ... Native loadbalancing will not work"\n')
  const logged = preflight(dir, 'mesh')
  t.equal(logged.code, 1)
  t.match(logged.out, 'REFUSED: dockerd logged "Native loadbalancing will not work"')
})

t.test('refused: a worker or no swarm, a missing secret, a certificate without its key, no trusted load balancer, a demo configuration', async (t) => {
  t.match(preflight(node(t, { swarm: 'active false' }), 'host').out, 'REFUSED: this node is a swarm worker')
  t.match(preflight(node(t, { swarm: 'inactive false' }), 'host').out, 'REFUSED: no active swarm here')

  const dir = node(t)
  rmSync(join(dir, 'deploy/secrets/purge_secret'))
  t.match(preflight(dir, 'host').out, 'REFUSED: deploy/secrets/purge_secret is missing')

  const other = node(t)
  spawnSync('openssl', ['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', join(other, 'deploy/tls/key.pem')])
  t.match(preflight(other, 'host').out, 'REFUSED: deploy/tls/key.pem is not the key of deploy/tls/certificate.pem')
  t.match(preflight(node(t), 'behind-lb').out, 'REFUSED: TRUSTED_LB_ADDRESSES is empty')

  const demo = node(t)
  const missing = preflight(demo, 'host', { CRAFT_API_URL: '', SITE_URL: 'http://localhost' })
  t.equal(missing.code, 1)
  t.match(missing.out, 'REFUSED: CRAFT_API_URL is unset')
  t.match(missing.out, "REFUSED: SITE_URL='http://localhost' is not an https address")
  t.equal(preflight(demo, 'host', { CRAFT_API_URL: '', SITE_URL: '', DEMO_SITE: 'true' }).code, 0, 'DEMO_SITE=true: a demo, as the gateway allows')
})
