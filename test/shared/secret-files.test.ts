import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { ROOT } from '../helpers/processes.ts'

// Secrets from files (Docker and Swarm secrets under /run/secrets), and RENDER_SECRET required where the image says so.

const SECRET = 'a-secret-of-32-characters-length'

function secretFile(t: Test, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'secret-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'secret')
  writeFileSync(path, content)
  return path
}

t.test('RENDER_SECRET_FILE and PURGE_SECRET_FILE: the file\'s content without its line break', async (t) => {
  const path = secretFile(t, `${SECRET}\n`)
  t.equal(loadGatewayConfig({ RENDER_SECRET_FILE: path }).renderSecret, SECRET)
  t.equal(loadRendererConfig({ RENDER_SECRET_FILE: path }).renderSecret, SECRET)
  t.equal(loadGatewayConfig({ PURGE_SECRET_FILE: path }).purgeSecret, SECRET)
  t.equal(loadGatewayConfig({ PURGE_SECRET_FILE: secretFile(t, '') }).purgeSecret, undefined, 'an empty file: no purge secret')
})

t.test('a secret file that is unreadable, too short, or set beside the variable stops the service', async (t) => {
  t.throws(() => loadGatewayConfig({ RENDER_SECRET_FILE: '/nonexistent/render_secret' }), /RENDER_SECRET_FILE=.*cannot be read: ENOENT/)
  t.throws(() => loadRendererConfig({ RENDER_SECRET_FILE: secretFile(t, 'geheim\n') }), /RENDER_SECRET is too short/)
  t.throws(() => loadGatewayConfig({ RENDER_SECRET: SECRET, RENDER_SECRET_FILE: secretFile(t, SECRET) }), /RENDER_SECRET and RENDER_SECRET_FILE are both set/)
  if (process.getuid?.() !== 0) {
    const path = secretFile(t, SECRET)
    chmodSync(path, 0o000)
    t.throws(() => loadGatewayConfig({ RENDER_SECRET_FILE: path }), /cannot be read: EACCES/)
  }
})

t.test('REQUIRE_RENDER_SECRET=true (the image sets it): no RENDER_SECRET is a configuration error; unset, it stays optional', async (t) => {
  t.throws(() => loadGatewayConfig({ REQUIRE_RENDER_SECRET: 'true' }), /RENDER_SECRET \(or RENDER_SECRET_FILE\) is required/)
  t.throws(() => loadRendererConfig({ REQUIRE_RENDER_SECRET: 'true' }), /RENDER_SECRET \(or RENDER_SECRET_FILE\) is required/)
  t.throws(() => loadRendererConfig({ REQUIRE_RENDER_SECRET: 'true', RENDER_SECRET_FILE: secretFile(t, '') }), /is required/, 'an empty file is no secret')
  t.equal(loadGatewayConfig({ REQUIRE_RENDER_SECRET: 'true', RENDER_SECRET: SECRET }).renderSecret, SECRET)
  t.equal(loadRendererConfig({ REQUIRE_RENDER_SECRET: 'true', RENDER_SECRET_FILE: secretFile(t, SECRET) }).renderSecret, SECRET)
  t.equal(loadGatewayConfig({}).renderSecret, undefined, 'npm start, npm run dev and the tests: optional')
  t.equal(loadRendererConfig({ REQUIRE_RENDER_SECRET: 'false' }).renderSecret, undefined)
})

for (const [service, entry] of [
  ['gateway', 'gateway/server.ts'],
  ['renderer', 'renderer/server/server.ts'],
]) {
  t.test(`the ${service} started as the image starts it, without RENDER_SECRET, exits with code 2 and says why`, async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry ?? '')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', REQUIRE_RENDER_SECRET: 'true', HOST: '127.0.0.1', PORT: '0', RENDERER_HOST: '127.0.0.1', RENDERER_PORT: '0', INTERNAL_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    t.equal(code, 2)
    t.match(stderr, `${service}: configuration error: RENDER_SECRET (or RENDER_SECRET_FILE) is required: REQUIRE_RENDER_SECRET is set`)
  })
}
