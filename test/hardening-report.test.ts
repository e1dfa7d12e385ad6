import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

/** `npm run hardening` with the given arguments, as npm runs it; its exit code and output. */
function hardening(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/hardening-report.mjs'), ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

t.test('--only runs the named measurements alone and merges their figures into the file, keeping the others', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hardening-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'hardening.json')
  writeFileSync(out, JSON.stringify({ sockets: { measuredAt: 'earlier' } }))
  const { code, stdout, stderr } = await hardening(['--only=readiness', `--out=${out}`])
  t.equal(code, 0, stderr)
  const written = JSON.parse(readFileSync(out, 'utf8')) as Record<string, Record<string, unknown>>
  t.same(Object.keys(written).sort(), ['readiness', 'sockets'], 'only the readiness probes ran; the earlier figures stay')
  t.equal(written.sockets?.measuredAt, 'earlier')
  t.equal(written.readiness?.probes, 300)
  t.type(written.readiness?.cmsCalls, 'number')
  t.type(written.readiness?.measuredAt, 'string')
  t.match(stdout, /CMS calls, 300 readiness probes\s+\d+/, 'the table has its row')
})

t.test('an unknown name is refused with the known ones, before anything starts', async (t) => {
  const { code, stderr } = await hardening(['--only=readiness,nope'])
  t.equal(code, 2)
  t.match(stderr, /unknown nope; known: api, junk, readiness, uncached, stale, down, sockets, redis, flood/)
})
