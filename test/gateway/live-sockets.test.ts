import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Client, createClient } from 'graphql-ws'
import t from 'tap'
import { Agent, WebSocket, request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { isFatalClose } from '../../renderer/client/live-updates.ts'
import { LIVE_UPDATES_PATH, WS_RETRY_ATTEMPTS } from '../../shared/constants.ts'
import { openRawWebSocket } from '../helpers/raw-websocket.ts'
import { type System, startSystem } from '../helpers/system.ts'

const PREVIEW_TOKEN = 'preview-token-about-draft'
const DRAFT_TITLE = 'Over Havenborg (concept'
/** What each test waits for comes within seconds; without its feature it never comes, and the test fails here rather than at tap's timeout. */
const BOUNDED = { timeout: 60_000 }
const INIT = JSON.stringify({ type: 'connection_init', payload: { token: PREVIEW_TOKEN } })

async function system(t: { teardown: (fn: () => unknown) => void }, env: Record<string, string>): Promise<System> {
  const started = await startSystem(env)
  t.teardown(() => started.close())
  return started
}

const wsUrl = (system: System) => `${system.url.replace(/^http/, 'ws')}${LIVE_UPDATES_PATH}`

/** The site's own client (renderer/client/live-updates.ts): fatal codes end it, others retry at once here. */
function siteClient(system: System, token: string, events: { connecting: number; closeCodes: number[] }): Client {
  return createClient({
    url: wsUrl(system),
    webSocketImpl: WebSocket,
    connectionParams: { token },
    lazy: false,
    retryAttempts: WS_RETRY_ATTEMPTS,
    shouldRetry: (errorOrCloseEvent) => !isFatalClose(errorOrCloseEvent),
    retryWait: async () => undefined,
    onNonLazyError: () => undefined,
    on: {
      connecting: () => void events.connecting++,
      closed: (event) => void events.closeCodes.push((event as { code: number }).code),
    },
  })
}

t.test('a socket that sends no connection_init is closed with 4408 after LIVE_INIT_TIMEOUT_MS', BOUNDED, async (t) => {
  const site = await system(t, { LIVE_INIT_TIMEOUT_MS: '100' })
  const silent = await openRawWebSocket(site.url, LIVE_UPDATES_PATH)
  t.teardown(() => silent.destroy())
  t.equal(silent.status, 101, 'upgraded')
  await silent.until((socket) => socket.closeCode !== undefined)
  t.equal(silent.closeCode, 4408, "graphql-ws's Connection initialisation timeout")
  await silent.until((socket) => socket.ended)
  t.pass('and the gateway ends the connection itself, though the client never answers the close')
})

t.test('a peer that leaves pings unanswered is cut off; one that answers stays', BOUNDED, async (t) => {
  const site = await system(t, { LIVE_PING_INTERVAL_MS: '1000' })
  const dead = await openRawWebSocket(site.url, LIVE_UPDATES_PATH, { answerPings: false })
  const alive = await openRawWebSocket(site.url, LIVE_UPDATES_PATH)
  t.teardown(() => {
    dead.destroy()
    alive.destroy()
  })
  for (const socket of [dead, alive]) {
    socket.sendText(INIT)
    await socket.until(({ texts }) => texts.some((text) => text.includes('connection_ack')))
  }
  await dead.until((socket) => socket.ended)
  t.ok(dead.pings >= 1, 'it was pinged')
  t.equal(dead.closeCode, undefined, 'and cut off without a close handshake')
  await alive.until((socket) => socket.pings >= 3 || socket.ended)
  t.notOk(alive.ended, 'the peer that answers is still connected after three pings')
})

t.test('subscriptions and tokens', async (t) => {
  const contentDir = mkdtempSync(join(tmpdir(), 'live-content-'))
  t.teardown(() => rmSync(contentDir, { recursive: true, force: true }))
  cpSync(loadGatewayConfig({}).contentDir, contentDir, { recursive: true })
  const site = await system(t, { LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET: '2', CONTENT_DIR: contentDir })

  t.test('a token that is not a preview token is closed with 4403, and the site\'s client does not try again', async (t) => {
    const events = { connecting: 0, closeCodes: [] as number[] }
    const client = siteClient(site, 'not-a-preview-token', events)
    t.teardown(() => client.dispose())
    const ended = await new Promise<unknown>((resolve) => client.subscribe({ query: 'subscription { entryChanged { id } }' }, { next: () => undefined, error: resolve, complete: () => resolve(undefined) }))
    t.equal((ended as { code?: number }).code, 4403, 'Forbidden')
    t.same(events.closeCodes, [4403])
    t.equal(events.connecting, 1, 'one attempt, no retries')
  })

  t.test('subscription N+1 on one socket gets an error; the first N stay live and the socket open', BOUNDED, async (t) => {
    const events = { connecting: 0, closeCodes: [] as number[] }
    const client = siteClient(site, PREVIEW_TOKEN, events)
    t.teardown(() => client.dispose())
    const changes: string[][] = [[], [], []]
    let told: () => void = () => undefined
    let failed: (error: unknown) => void = () => undefined
    const bothTold = new Promise<void>((resolve, reject) => {
      told = resolve
      failed = reject
    })
    const refused = new Promise<unknown>((resolve) => {
      for (const [index, seen] of changes.entries()) {
        client.subscribe(
          { query: 'subscription { entryChanged { id } }' },
          {
            next: (result) => {
              seen.push(JSON.stringify(result.data))
              if (changes[0]!.length > 0 && changes[1]!.length > 0) told()
            },
            error: index === 2 ? resolve : (error) => failed(new Error(`subscription ${index} ended: ${JSON.stringify(error)} ${(error as { code?: number }).code}`)), complete: () => undefined },
        )
      }
    })
    const error = (await refused) as { message?: string; extensions?: { code?: string } }[]
    t.equal(error[0]?.extensions?.code, 'TOO_MANY_SUBSCRIPTIONS', 'the third is refused')

    const file = ['site-topical.json', 'site-pages.json'].map((name) => join(contentDir, name)).find((name) => readFileSync(name, 'utf8').includes(DRAFT_TITLE))
    if (!file) throw new Error('no content file holds the About draft')
    writeFileSync(file, readFileSync(file, 'utf8').replace(DRAFT_TITLE, `${DRAFT_TITLE}, bijgewerkt`))
    await bothTold
    t.ok(changes[0]!.length > 0 && changes[1]!.length > 0, 'the first two are told of the change')
    t.same(changes[2], [], 'the refused one is not')
    t.same(events.closeCodes, [], 'the socket was never closed')
  })
})

t.test('open sockets per client and in all', BOUNDED, async (t) => {
  const site = await system(t, { LIVE_MAX_SOCKETS_PER_CLIENT: '2', LIVE_MAX_SOCKETS: '3' })
  const opened: Awaited<ReturnType<typeof openRawWebSocket>>[] = []
  t.teardown(() => opened.forEach((socket) => socket.destroy()))
  const open = async (localAddress: string) => {
    const socket = await openRawWebSocket(site.url, LIVE_UPDATES_PATH, { localAddress })
    opened.push(socket)
    return socket.status
  }
  t.equal(await open('127.0.0.1'), 101)
  t.equal(await open('127.0.0.1'), 101)
  t.equal(await open('127.0.0.1'), 429, "the client's third socket is refused")
  t.equal(await open('127.0.0.2'), 101, 'another client still connects')
  t.equal(await open('127.0.0.3'), 503, 'past LIVE_MAX_SOCKETS nobody does')

  const page = await request(`${site.url}/over-ons`, { dispatcher: new Agent({ connect: { localAddress: '127.0.0.1' } }) })
  t.equal(page.statusCode, 200, 'the client with its sockets full still gets pages')
  await page.body.dump()

  const first = opened[0]!
  first.destroy()
  await first.until((socket) => socket.ended)
  // The gateway learns of the close from the kernel; until then the place is still taken.
  let status = 0
  for (let attempt = 0; attempt < 100 && status !== 101; attempt++) {
    status = await open('127.0.0.1')
    if (status !== 101) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(status, 101, 'a closed socket frees its place')
})

t.test('an upgrade request for another path is answered as an ordinary request, and its connection closed', BOUNDED, async (t) => {
  const site = await system(t, {})
  const other = await openRawWebSocket(site.url, '/over-ons')
  t.teardown(() => other.destroy())
  t.equal(other.status, 200, 'the page')
  await other.until((socket) => socket.ended)
  t.pass('the connection is closed after the answer')
})
