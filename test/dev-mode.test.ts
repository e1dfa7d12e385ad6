import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, cpSync, ftruncateSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { build } from 'esbuild'
import t from 'tap'
import { request } from 'undici'
import { buildGateway } from '../gateway/app.ts'
import { loadGatewayConfig } from '../gateway/config.ts'
import { clientBuildOptions } from '../scripts/build-steps.mjs'
import { DEV_GENERATION_TIMING, DEV_RELOAD_PATH } from '../shared/constants.ts'
import { hydrated, launchBrowser, openPage } from './helpers/browser.ts'
import { freePort } from './helpers/ports.ts'
import { ROOT } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'
import { eventData } from './helpers/event-stream.ts'

const HEADING = '#footer-contact'
const LAYOUT = 'renderer/app/components/layout.tsx'
const BUILDS_ROUTE = 'gateway/routes/builds.ts'
/** In the renderer's bundle and not the browser's. */
const SERVER_ONLY = 'renderer/server/render.tsx'
const SERVER_ONLY_LINE = "const DOCTYPE = '<!DOCTYPE html>'"
/** In the browser's bundle and not the renderer's. */
const CLIENT_ONLY = 'renderer/client/entry.tsx'

t.test('the production client bundle has no trace of the dev reload; the dev bundle has it', async (t) => {
  const outdir = join(tmpdir(), 'unwritten')
  const texts = async (dev: boolean): Promise<string> => {
    const result = await build({ ...clientBuildOptions({ dev, outdir }), write: false, logLevel: 'silent' })
    return (result.outputFiles ?? []).filter((file) => file.path.endsWith('.js')).map((file) => file.text).join('\n')
  }
  const [production, dev] = await Promise.all([texts(false), texts(true)])
  // Not t.match: a failure would print megabytes of bundle.
  t.notOk(production.includes('__dev'), 'no /__dev/ address in production')
  t.notOk(production.includes('EventSource'), 'no EventSource in production')
  t.notOk(production.includes(DEV_GENERATION_TIMING), 'no reading of the generation in production')
  t.ok(dev.includes(DEV_RELOAD_PATH), 'the dev bundle opens the stream')
})

t.test('the gateway serves the reload stream only with DEV_RELOAD_FILE, never with NODE_ENV=production', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'dev-reload-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const file = join(folder, 'dev-generation')
  writeFileSync(file, 'first')
  t.throws(() => loadGatewayConfig({ DEV_RELOAD_FILE: file, NODE_ENV: 'production', DEMO_SITE: 'true' }), /refused with NODE_ENV=production/)

  const production = await startSystem()
  t.teardown(() => production.close())
  const answer = await request(`${production.url}${DEV_RELOAD_PATH}`)
  await answer.body.dump()
  t.equal(answer.statusCode, 404, 'without it the address is an unknown page')
  t.notOk(answer.headers['server-timing'], 'and answers name no generation')

  const dev = await buildGateway(loadGatewayConfig({ LOG_LEVEL: 'silent', DEV_RELOAD_FILE: file }))
  let closed = false
  t.teardown(() => (closed ? undefined : dev.close()))
  const origin = await dev.listen({ host: '127.0.0.1', port: 0 })
  t.equal((await dev.inject({ url: '/healthz' })).headers['server-timing'], `${DEV_GENERATION_TIMING};desc="first"`, 'every answer names the generation it was made in')
  const response = await request(`${origin}${DEV_RELOAD_PATH}`)
  t.equal(response.headers['content-type'], 'text/event-stream')
  const events = eventData(response.body)
  t.equal(await events.next(), 'first', 'the current generation on connect')
  writeFileSync(file, 'second')
  t.equal(await events.next(), 'second', 'and each new one')
  const ended = events.drain()
  await dev.close()
  closed = true
  await ended
  t.pass('closing the gateway ends the open streams')
})

/** The dev process's output, and a wait for a line in it. */
function watchOutput(child: ChildProcess) {
  let text = ''
  const waiters = new Set<() => void>()
  const notify = (): void => {
    for (const waiter of waiters) waiter()
  }
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
    notify()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
    notify()
  })
  child.on('exit', notify)
  return {
    get text() {
      return text
    },
    count: (pattern: RegExp): number => [...text.matchAll(new RegExp(pattern, 'g'))].length,
    /** Resolves when `pattern` appears after offset `from`. */
    until(pattern: RegExp, from: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(text.slice(from))) {
            waiters.delete(check)
            resolve()
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check)
            reject(new Error(`npm run dev ended while waiting for ${pattern}:\n${text.slice(-3000)}`))
          }
        }
        waiters.add(check)
        check()
      })
    },
  }
}

t.test('npm run dev: a saved component is on screen without a reload by hand; only the service that changed restarts', async (t) => {
  const tree = mkdtempSync(join(tmpdir(), 'dev-mode-'))
  for (const entry of ['gateway', 'renderer', 'shared', 'public', 'scripts', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, entry), join(tree, entry), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'))
  const edit = (file: string, from: string, to: string): void => {
    const path = join(tree, file)
    const text = readFileSync(path, 'utf8')
    if (!text.includes(from)) throw new Error(`${file} has no ${from}`)
    // Written over the old bytes and cut to length after, never emptied first as writeFileSync does: on a loaded
    // machine a bundle could read the empty file (a build that succeeds, with every import undefined) while the
    // other reads the new one, and restart counts would follow the scheduler. The edits here end as the files
    // do, so what is read before the cut is whole too.
    const next = Buffer.from(text.replace(from, to))
    const fd = openSync(path, 'r+')
    try {
      writeSync(fd, next, 0, next.length, 0)
      ftruncateSync(fd, next.length)
    } finally {
      closeSync(fd)
    }
  }

  // npm run dev tells each service the other's port, and restarts a service on its port: those two are named; the
  // gateway's other listeners bind port 0.
  const [port, rendererPort] = await Promise.all([freePort(), freePort()])
  const dev = spawn(process.execPath, ['scripts/dev.mjs'], {
    cwd: tree,
    // Its own process group, so the teardown reaches every process it started.
    detached: true,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), RENDERER_PORT: String(rendererPort), INTERNAL_PORT: '0', EMBEDDED_CMS_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = watchOutput(dev)
  const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve))
  const browser = await launchBrowser()
  t.teardown(async () => {
    if (!t.passing()) t.comment(`npm run dev said:\n${output.text.slice(-4000)}`)
    await browser.close()
    // Whatever the last subtest left running; SIGTERM's clean stop is a subtest of its own.
    try {
      if (dev.pid !== undefined) process.kill(-dev.pid, 'SIGKILL')
    } catch {
      // the group is empty already
    }
    await exited
    rmSync(tree, { recursive: true, force: true })
  })
  await output.until(/\[dev\] (ready on|not started)/, 0)
  if (!/\[dev\] ready on/.test(output.text)) throw new Error(`npm run dev did not start:\n${output.text.slice(-3000)}`)
  const site = `http://127.0.0.1:${port}`
  const gatewayStarts = /\[dev\] gateway started/
  const rendererStarts = /\[dev\] renderer started/

  const { page } = await openPage(browser)
  await page.goto(`${site}/`)
  await hydrated(page)
  await page.waitForFunction(() => document.documentElement.dataset.devGeneration !== undefined)
  t.equal(await page.textContent(HEADING), 'Contact')
  const marked = (): Promise<void> =>
    page.evaluate(() => {
      ;(window as unknown as { before?: boolean }).before = true
    })
  /** The page reloaded by itself and shows `text`, then hydrates with the client built from the same change. */
  const reloadedWith = async (text: string): Promise<void> => {
    await page.waitForFunction(
      ([selector, expected]) => !(window as unknown as { before?: boolean }).before && document.querySelector(selector as string)?.textContent === expected,
      [HEADING, text],
      { timeout: 30_000 },
    )
    await hydrated(page)
    if ((await page.textContent(HEADING)) !== text) throw new Error('the hydrated page shows another heading')
  }

  await t.test('a component changes: the renderer restarts, the gateway does not, and the page shows it', async (t) => {
    await marked()
    const [gateways, renderers] = [output.count(gatewayStarts), output.count(rendererStarts)]
    const saved = performance.now()
    edit(LAYOUT, '<h2 id="footer-contact">Contact</h2>', '<h2 id="footer-contact">Contact (bewerkt)</h2>')
    await reloadedWith('Contact (bewerkt)')
    t.comment(`the new heading was on screen ${Math.round(performance.now() - saved)} ms after the file was saved`)
    t.comment([...output.text.matchAll(/\[dev\] pages reload: (.*)/g)].pop()?.[1] ?? '')
    t.equal(output.count(rendererStarts), renderers + 1, 'the renderer restarted once')
    t.equal(output.count(gatewayStarts), gateways, 'the gateway kept running')
  })

  await t.test('a gateway file changes: the gateway restarts and the page reloads', async (t) => {
    await marked()
    const [gateways, renderers] = [output.count(gatewayStarts), output.count(rendererStarts)]
    edit(BUILDS_ROUTE, 'return { id: app.build.id, timestamp: app.build.timestamp }', "return { id: app.build.id, timestamp: app.build.timestamp, edited: 'yes' }")
    await reloadedWith('Contact (bewerkt)')
    t.equal(output.count(gatewayStarts), gateways + 1, 'the gateway restarted once')
    t.equal(output.count(rendererStarts), renderers, 'the renderer kept running')
    const latest = await request(`${site}/builds/latest.json`)
    t.match(await latest.body.json(), { edited: 'yes' }, 'the restarted gateway runs the changed code')
  })

  await t.test('a syntax error is printed and changes nothing; fixing it brings the change', async (t) => {
    await marked()
    const from = output.text.length
    const renderers = output.count(rendererStarts)
    edit(LAYOUT, '<h2 id="footer-contact">Contact (bewerkt)</h2>', '<h2 id="footer-contact">Contact (bewerkt)</h2')
    await output.until(/renderer not rebuilt/, from)
    t.match(output.text.slice(from), /layout\.tsx/, "esbuild's error names the file")
    t.equal(dev.exitCode, null, 'the watcher runs on')
    t.equal(output.count(rendererStarts), renderers, 'the running renderer was left alone')
    const page200 = await request(`${site}/`)
    t.equal(page200.statusCode, 200, 'and still serves the site')
    t.match(await page200.body.text(), 'Contact (bewerkt)')

    edit(LAYOUT, '<h2 id="footer-contact">Contact (bewerkt)</h2', '<h2 id="footer-contact">Contact (hersteld)</h2>')
    await reloadedWith('Contact (hersteld)')
    t.equal(output.count(rendererStarts), renderers + 1)
  })

  await t.test('a broken renderer build is never started, even when the browser bundle it serves changed with it', async (t) => {
    await marked()
    const from = output.text.length
    const renderers = output.count(rendererStarts)
    // esbuild removes the output of a build that failed: a renderer started now would find no bundle and die.
    edit(SERVER_ONLY, SERVER_ONLY_LINE, `${SERVER_ONLY_LINE} (`)
    edit(CLIENT_ONLY, "the bundle could not be loaded'", "the bundle could not be loaded (edited)'")
    await output.until(/renderer not restarted: its build is broken/, from)
    t.equal(output.count(rendererStarts), renderers, 'the renderer was not started from a broken build')
    const during = await request(`${site}/`)
    t.equal(during.statusCode, 200, 'the running renderer still serves the site')
    await during.body.dump()

    edit(SERVER_ONLY, `${SERVER_ONLY_LINE} (`, SERVER_ONLY_LINE)
    await reloadedWith('Contact (hersteld)')
    t.equal(output.count(rendererStarts), renderers + 1, 'started once its build is whole again')
    const { client } = (JSON.parse(readFileSync(join(tree, 'dist-dev', 'build.json'), 'utf8')) as { assets: { client: string } }).assets
    const after = await request(`${site}/`)
    t.match(await after.body.text(), client, 'and its pages load the changed browser bundle')
    t.notMatch(output.text.slice(from), /ERR_MODULE_NOT_FOUND|renderer exited/, 'no renderer died on the way')
  })

  await t.test("an editor's atomic save (written beside the file, renamed over it) is seen every time", async (t) => {
    for (const [from, to] of [
      ['Contact (hersteld)', 'Contact (atomisch)'],
      ['Contact (atomisch)', 'Contact (nogmaals)'],
    ] as const) {
      await marked()
      const path = join(tree, LAYOUT)
      const saving = join(tree, dirname(LAYOUT), `.${basename(LAYOUT)}.saving`)
      writeFileSync(saving, readFileSync(path, 'utf8').replace(`<h2 id="footer-contact">${from}</h2>`, `<h2 id="footer-contact">${to}</h2>`))
      renameSync(saving, path)
      await reloadedWith(to)
      t.pass(`${to} on screen after the save`)
    }
  })

  await t.test('SIGTERM stops npm run dev and every service it started', async (t) => {
    dev.kill('SIGTERM')
    t.equal(await exited, 0)
    for (const servicePort of [port, rendererPort]) {
      await t.rejects(request(`http://127.0.0.1:${servicePort}/healthz`), { code: 'ECONNREFUSED' }, `nothing listens on ${servicePort}`)
    }
  })
})
