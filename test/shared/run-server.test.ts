import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ROOT } from '../helpers/processes.ts'

// How a service started by shared/run-server.ts ends, and that its log says why.

interface StandIn {
  child: ChildProcessWithoutNullStreams
  /** The JSON lines logged so far. */
  lines(): Record<string, unknown>[]
  stderr(): string
  /** Resolves with the first logged line that passes `test`; fails if the process exits first. */
  logged(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>
  exitCode: Promise<number | null>
}

function startStandIn(t: Test, env: Record<string, string> = {}): StandIn {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/run-server-stand-in.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exitCode = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const lines = (): Record<string, unknown>[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  const logged = (test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const line = lines().find(test)
        if (line === undefined) return
        child.stdout.off('data', check)
        child.off('exit', exited)
        resolve(line)
      }
      const exited = (): void => reject(new Error(`the stand-in exited before the line was logged:\n${stdout}${stderr}`))
      child.stdout.on('data', check)
      child.once('exit', exited)
      check()
    })
  return { child, lines, stderr: () => stderr, logged, exitCode }
}

const message = (text: string) => (line: Record<string, unknown>) => line.msg === text

async function listening(t: Test, env?: Record<string, string>): Promise<StandIn> {
  const standIn = startStandIn(t, env)
  await standIn.logged(message('stand-in listening'))
  return standIn
}

t.test('SIGTERM: closed, exit code 0, and the log names the signal', async (t) => {
  const standIn = await listening(t)
  standIn.child.kill('SIGTERM')
  t.equal(await standIn.exitCode, 0)
  t.match(standIn.lines().find(message('SIGTERM received, closing')), { level: 30, signal: 'SIGTERM' }, 'why it closed')
  t.ok(standIn.lines().some(message('close steps started')), 'its own close steps ran')
})

t.test('a close step that throws: exit code 1, and the log has the error', async (t) => {
  const standIn = await listening(t, { CLOSE: 'throws' })
  standIn.child.kill('SIGTERM')
  t.equal(await standIn.exitCode, 1)
  t.match(standIn.lines().find(message('closing failed; exiting with code 1')), { level: 50, err: { message: 'the close step broke', stack: String } })
})

for (const [command, error] of [
  ['throw', 'an uncaught boom'],
  ['reject', 'an unhandled boom'],
] as const) {
  t.test(`an error outside any request (${command}): closed, exit code 1, and the log has the error`, async (t) => {
    const standIn = await listening(t)
    standIn.child.stdin.write(`${command}\n`)
    t.equal(await standIn.exitCode, 1)
    t.match(standIn.lines().find(message('an uncaught error or unhandled rejection; closing')), { level: 50, err: { message: error } })
    t.ok(standIn.lines().some(message('close steps started')), 'the close steps ran')
  })
}

t.test('close steps still busy at the deadline: exit code 1, and the log says the deadline passed', async (t) => {
  const standIn = await listening(t, { CLOSE: 'hangs', DEADLINE_MS: '300' })
  standIn.child.kill('SIGTERM')
  t.equal(await standIn.exitCode, 1)
  t.match(standIn.lines().find(message('still closing at the deadline (300 ms); exiting with code 1')), { level: 50, deadlineMs: 300 })
})

t.test('Ctrl-C under npm start (SIGINT, then SIGTERM from the starter): the second signal does not cut the close short', async (t) => {
  const standIn = await listening(t, { CLOSE: 'waits' })
  standIn.child.kill('SIGINT')
  await standIn.logged(message('close steps started'))
  standIn.child.kill('SIGTERM')
  await standIn.logged(message('SIGTERM received while closing; the close goes on'))
  standIn.child.stdin.write('finish\n')
  t.equal(await standIn.exitCode, 0, 'the close steps finished, the exit is clean')
  t.match(standIn.lines().find(message('SIGINT received, closing')), { signal: 'SIGINT' })
})

t.test('the same signal twice while closing: exit at once, code 1, and the log says so', async (t) => {
  const standIn = await listening(t, { CLOSE: 'waits' })
  standIn.child.kill('SIGTERM')
  await standIn.logged(message('close steps started'))
  standIn.child.kill('SIGTERM')
  t.equal(await standIn.exitCode, 1)
  t.match(standIn.lines().find(message('second SIGTERM received while closing; exiting at once with code 1')), { level: 50, signal: 'SIGTERM' })
})

t.test('a configuration error: exit code 2 and the reason on stderr, before anything starts', async (t) => {
  const standIn = startStandIn(t, { BAD_SETTING: 'x' })
  t.equal(await standIn.exitCode, 2)
  t.match(standIn.stderr(), 'stand-in: configuration error: BAD_SETTING="x" is not a setting')
  t.same(standIn.lines(), [], 'no app was built')
})
