import { spawn } from 'node:child_process'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { ConfigError } from '../../shared/errors.ts'
import { resolveListenHosts } from '../../shared/listen-hosts.ts'
import { ROOT } from '../helpers/processes.ts'

// HOST as a list, and `@name` for this machine's own address among a name's: how a container's ports answer on
// some of its networks only (docker-compose.yml, docker-stack.yml). Loopback addresses stand for the networks here.

t.test('addresses are kept as they are; @name is the own address among those the name resolves to', async (t) => {
  t.same(await resolveListenHosts('0.0.0.0'), ['0.0.0.0'], 'the usual setting is unchanged')
  t.same(await resolveListenHosts(' 127.0.0.1 , 127.0.0.2 '), ['127.0.0.1', '127.0.0.2'])
  const [own] = await resolveListenHosts('@localhost')
  t.ok(own === '127.0.0.1' || own === '::1', `@localhost is ${own}`)
  t.same(await resolveListenHosts('127.0.0.1,@127.0.0.1'), ['127.0.0.1'], 'one address once')
  t.same(await resolveListenHosts('@127.0.0.0/8'), ['127.0.0.1'], '@subnet: the own address in it')
})

t.test('@name with no address of this machine is a configuration error once the wait is over', async (t) => {
  // 198.51.100.1 (TEST-NET-2) resolves to itself and is no address of this machine.
  await t.rejects(resolveListenHosts('@198.51.100.1', 0), new ConfigError('@198.51.100.1: none of its addresses (198.51.100.1) is this machine\'s'))
  await t.rejects(resolveListenHosts(' , ', 0), ConfigError)
  await t.rejects(resolveListenHosts('@198.51.100.0/24', 0), new ConfigError('@198.51.100.0/24: this machine has no address in that subnet'))
  await t.rejects(resolveListenHosts('@10.0.0.0/x', 0), ConfigError)
})

function startStandIn(t: Test, host: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/run-server-stand-in.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: host },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      const line = stdout.split('\n').find((candidate) => candidate.includes('"Server listening at http://127.0.0.1:'))
      const port = line?.match(/127\.0\.0\.1:(\d+)/)?.[1]
      if (port) resolve(Number(port))
    })
    void exited.then(() => reject(new Error(`exited before listening:\n${stdout}${stderr}`)))
  })
  return { child, exited, listening, stderr: () => stderr }
}

t.test('a service on HOST=127.0.0.1,127.0.0.2 answers on both addresses and on no other; it stops on both', async (t) => {
  const standIn = startStandIn(t, '127.0.0.1,127.0.0.2')
  const port = await standIn.listening
  for (const address of ['127.0.0.1', '127.0.0.2']) {
    const response = await request(`http://${address}:${port}/nothing-here`)
    t.equal(response.statusCode, 404, `${address} answers (the app's 404)`)
    await response.body.dump()
  }
  await t.rejects(request(`http://127.0.0.3:${port}/`), { code: 'ECONNREFUSED' }, 'another loopback address does not')
  standIn.child.kill('SIGTERM')
  t.equal(await standIn.exited, 0, 'closes cleanly')
  await t.rejects(request(`http://127.0.0.2:${port}/`), { code: 'ECONNREFUSED' }, 'the second address is closed too')
})

t.test('a service whose @name is none of its addresses exits with code 2', async (t) => {
  const standIn = startStandIn(t, '127.0.0.1,@198.51.100.1')
  standIn.listening.catch(() => {})
  t.equal(await standIn.exited, 2)
  t.match(standIn.stderr(), 'stand-in: configuration error: @198.51.100.1')
})
