// A production start refuses what only a demo may serve: the image sets
// NODE_ENV=production, and a stack deployed with its defaults served the
// embedded content with links to localhost, passing every health check.
import { execFile } from 'node:child_process'
import t from 'tap'
import { loadGatewayConfig } from '../gateway/config.ts'
import { isOnThisMachine } from '../gateway/settings/live-site.ts'
import { ROOT } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'

const LIVE = { NODE_ENV: 'production', SITE_URL: 'https://www.havenborg.example', CRAFT_API_URL: 'https://cms.havenborg.example/api' }

t.test('with NODE_ENV=production a live site starts only with CRAFT_API_URL and a public https SITE_URL', async (t) => {
  t.equal(loadGatewayConfig(LIVE).siteUrl.href, 'https://www.havenborg.example/', 'both set: it starts')

  const { CRAFT_API_URL: _craft, ...withoutCraft } = LIVE
  t.throws(() => loadGatewayConfig(withoutCraft), { name: 'ConfigError', message: /^CRAFT_API_URL is unset.*set CRAFT_API_URL to Craft's GraphQL endpoint.*DEMO_SITE=true/ }, 'no CRAFT_API_URL')
  t.throws(() => loadGatewayConfig({ ...LIVE, CRAFT_API_URL: '  ' }), { message: /^CRAFT_API_URL is unset/ }, 'an empty CRAFT_API_URL (the stack\'s `${CRAFT_API_URL:-}`)')

  const { SITE_URL: _site, ...withoutSite } = LIVE
  t.throws(() => loadGatewayConfig(withoutSite), { name: 'ConfigError', message: /^SITE_URL is unset \(so http:\/\/localhost:3000\), an address on this machine: set SITE_URL to the site's public https address/ }, 'no SITE_URL')
  for (const site of ['http://localhost:3000', 'https://localhost', 'https://LOCALHOST.', 'https://site.localhost', 'https://127.0.0.1', 'https://127.1.2.3:8443', 'https://127.1', 'https://[::1]', 'https://[0:0:0:0:0:0:0:1]:3000', 'https://[::ffff:127.0.0.1]', 'https://0.0.0.0']) {
    t.throws(() => loadGatewayConfig({ ...LIVE, SITE_URL: site }), { name: 'ConfigError', message: /^SITE_URL is ".*", an address on this machine: set SITE_URL/ }, `SITE_URL=${site}`)
  }
  t.throws(() => loadGatewayConfig({ ...LIVE, SITE_URL: 'http://www.havenborg.example' }), { name: 'ConfigError', message: /^SITE_URL is "http:\/\/www.havenborg.example": set an https:\/\/ address \(the preview cookie is Secure/ }, 'http:// on a live site')
})

t.test('DEMO_SITE=true lets a production build serve the embedded content on this machine; without NODE_ENV=production nothing is refused', async (t) => {
  const demo = loadGatewayConfig({ NODE_ENV: 'production', DEMO_SITE: 'true' })
  t.equal(demo.craftApiUrl, undefined, 'the embedded content')
  t.equal(demo.siteUrl.href, 'http://localhost:3000/', 'on localhost')
  t.equal(demo.demoSite, true)
  t.throws(() => loadGatewayConfig({ NODE_ENV: 'production', DEMO_SITE: 'false' }), { message: /^SITE_URL is unset/ }, 'DEMO_SITE=false is a live site')
  t.throws(() => loadGatewayConfig({ NODE_ENV: 'production', DEMO_SITE: 'ja' }), { name: 'ConfigError', message: /DEMO_SITE/ }, 'a DEMO_SITE that is not a boolean is refused')

  const plain = loadGatewayConfig({})
  t.equal(plain.craftApiUrl, undefined, '`npm start` with no settings: the embedded content')
  t.equal(plain.siteUrl.href, 'http://localhost:3000/', 'on localhost')
  t.equal(loadGatewayConfig({ NODE_ENV: 'development' }).demoSite, false, '`npm run dev`')
})

t.test('an address on this machine is localhost, *.localhost, 127/8 and ::1 (and the unspecified ones), nothing else', async (t) => {
  for (const host of ['localhost', 'a.b.localhost', '127.0.0.1', '127.255.0.9', '[::1]', '[::ffff:7f00:1]', '[::]', '0.0.0.0']) t.ok(isOnThisMachine(host), host)
  for (const host of ['www.havenborg.example', 'localhost.havenborg.example', 'mylocalhost', '128.0.0.1', '10.0.0.1', '[2001:db8::1]', '[::ffff:a00:1]']) t.notOk(isOnThisMachine(host), host)
})

t.test('the built gateway, started as the image starts it without CRAFT_API_URL, exits with code 2 and says what to set', async (t) => {
  const exit = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PORT: '0', SITE_URL: 'https://www.havenborg.example' }
    const child = execFile(process.execPath, ['dist/gateway.js'], { cwd: ROOT, env }, (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }))
  })
  t.equal(exit.code, 2, 'the gateway does not start')
  t.match(exit.stderr, 'configuration error: CRAFT_API_URL is unset, so the site would serve the embedded demo content: set CRAFT_API_URL', 'and names the setting')
})

t.test("scripts/readiness.mjs, the deploy's readiness check: every address of the name asked on the internal port, exit 0 only when all are ready", async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const ask = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['scripts/readiness.mjs'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } }, (_error, stdout) => resolve({ code: child.exitCode, stdout }))
    })
  const internal = new URL(system.internalUrl)
  const ready = await ask({ READINESS_NAME: internal.hostname, READINESS_PORT: internal.port })
  t.equal(ready.code, 0, ready.stdout)
  t.match(ready.stdout, `${internal.hostname}:${internal.port} ready`)
  t.match(ready.stdout, '1 of 1 ready')

  const publicPort = new URL(system.url).port
  const wrong = await ask({ READINESS_NAME: internal.hostname, READINESS_PORT: publicPort })
  t.equal(wrong.code, 1, 'the public port has no /readyz: not ready')
  t.match(wrong.stdout, 'NOT READY (404)')
  const nobody = await ask({ READINESS_NAME: 'no-such-gateway.invalid' })
  t.equal(nobody.code, 2, 'a name without an address')
})
