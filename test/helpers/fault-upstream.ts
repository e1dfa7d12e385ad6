import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { EMBEDDED_ASSETS_PATH, embeddedAssets, volumeUrl } from '../../gateway/embedded-cms/assets.ts'
import { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import { embeddedCms } from '../../gateway/embedded-cms/plugin.ts'
import { DEFAULT_SITE_HANDLE, EMBEDDED_CMS_PATH } from '../../shared/constants.ts'
import type { CraftVersion } from '../../shared/craft-naming.ts'
import { type System, startSystem } from './system.ts'

export interface UpstreamCall {
  operationName: string | undefined
  variables: Record<string, unknown>
  token: string | undefined
  authorization: string | undefined
  requestId: string | undefined
}

export type Behaviour =
  /** Forwarded to the embedded CMS; its answer's text through `rewrite` when given (a schema that hides types). */
  | { kind: 'pass'; rewrite?: (text: string) => string }
  | { kind: 'answer'; status: number; body: string; contentType?: string }
  | { kind: 'hold'; until: Promise<void> }
  | { kind: 'destroy' }

export interface FaultUpstream {
  url: string
  calls: UpstreamCall[]
  /** Decides, per call, what the upstream does; pass-through to the embedded CMS by default. */
  behave: (call: UpstreamCall) => Behaviour
  /** The content the CMS answers from: an editor's change is a `replace` of its files. */
  content: ContentStore
  close(): Promise<void>
}

/**
 * The embedded CMS alone, as a real Craft stand-in on loopback: its asset URLs
 * are absolute, on its own host under /cms-assets/ (where it serves the
 * volume), or under `assetBase` when given (a host that passes them on).
 */
export async function startEmbeddedCms(options: { contentDir?: string; assetBase?: () => string; version?: CraftVersion } = {}): Promise<{ url: string; app: FastifyInstance; store: ContentStore }> {
  const app = Fastify()
  let ownAssetBase = ''
  const store = ContentStore.fromDirectory(options.contentDir ?? loadGatewayConfig({}).contentDir, DEFAULT_SITE_HANDLE)
  await app.register(embeddedCms, {
    store,
    ...(options.version ? { version: options.version } : {}),
    assetUrl: (path) => volumeUrl(options.assetBase?.() ?? ownAssetBase)(path),
  })
  await app.register(embeddedAssets, { root: loadGatewayConfig({}).embeddedAssetDir })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  ownAssetBase = `http://127.0.0.1:${port}${EMBEDDED_ASSETS_PATH}`
  return { url: `http://127.0.0.1:${port}${EMBEDDED_CMS_PATH}`, app, store }
}

/** A call of the API: its body as it came, and what it asks. */
async function readCall(req: IncomingMessage): Promise<{ raw: Buffer; call: UpstreamCall }> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const raw = Buffer.concat(chunks)
  let parsed: { operationName?: string; variables?: Record<string, unknown> } = {}
  try {
    parsed = JSON.parse(raw.toString('utf8')) as typeof parsed
  } catch {
    // forwarded as it is
  }
  const header = (name: string): string | undefined => {
    const value = req.headers[name]
    return typeof value === 'string' ? value : undefined
  }
  return {
    raw,
    call: {
      operationName: parsed.operationName,
      variables: parsed.variables ?? {},
      token: header('x-craft-token'),
      authorization: header('authorization'),
      requestId: header('x-request-id'),
    },
  }
}

/**
 * An upstream for tests: forwards to the embedded CMS (in `version`'s naming)
 * unless told to answer garbage, an error status, hold a call back, change the
 * answer or drop the connection. On `port` when given (a Craft that comes up
 * at an address the gateway already has).
 */
export async function startFaultUpstream(options: { contentDir?: string; version?: CraftVersion; port?: number } = {}): Promise<FaultUpstream> {
  // Like a Craft, one host for the API and its assets: the asset URLs are on the upstream's own origin.
  let assetBase = ''
  const cms = await startEmbeddedCms({
    ...(options.contentDir === undefined ? {} : { contentDir: options.contentDir }),
    ...(options.version === undefined ? {} : { version: options.version }),
    assetBase: () => assetBase,
  })
  const upstream: FaultUpstream = {
    url: '',
    calls: [],
    behave: () => ({ kind: 'pass' }),
    content: cms.store,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await cms.app.close()
    },
  }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' && req.url?.startsWith(`${EMBEDDED_ASSETS_PATH}/`)) {
      // An asset file: passed on as it is, not a call of the API.
      const answer = await request(`${new URL(cms.url).origin}${req.url}`)
      const headers = Object.fromEntries(['content-type', 'content-length', 'cache-control', 'cross-origin-resource-policy'].flatMap((name) => (answer.headers[name] ? [[name, answer.headers[name]]] : [])))
      res.writeHead(answer.statusCode, headers)
      res.end(Buffer.from(await answer.body.arrayBuffer()))
      return
    }
    const { raw, call } = await readCall(req)
    upstream.calls.push(call)
    let behaviour = upstream.behave(call)
    if (behaviour.kind === 'hold') {
      await behaviour.until
      behaviour = { kind: 'pass' }
    }
    const rewrite = behaviour.kind === 'pass' ? behaviour.rewrite : undefined
    if (behaviour.kind === 'destroy') {
      req.socket.destroy()
      return
    }
    if (behaviour.kind === 'answer') {
      res.writeHead(behaviour.status, { 'content-type': behaviour.contentType ?? 'application/json' })
      res.end(behaviour.body)
      return
    }
    const forwarded: Record<string, string> = { 'content-type': 'application/json' }
    if (call.token) forwarded['x-craft-token'] = call.token
    const answer = await request(cms.url, { method: 'POST', headers: forwarded, body: raw })
    const body = Buffer.from(await answer.body.arrayBuffer())
    res.writeHead(answer.statusCode, { 'content-type': 'application/json' })
    res.end(rewrite ? rewrite(body.toString('utf8')) : body)
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const address = server.address()
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  upstream.url = `${origin}/api`
  assetBase = `${origin}${EMBEDDED_ASSETS_PATH}`
  return upstream
}

/** A system on a fault upstream of its own, and a promise that holds a call until the test is over. */
export interface FaultySystem {
  system: System
  upstream: FaultUpstream
  /** Resolved in the teardown before anything closes: `{ kind: 'hold', until: untilTeardown }` holds a call for good, and the system still closes. */
  untilTeardown: Promise<void>
}

/** Starts a fault upstream and a system on it (`env` beside its CRAFT_API_URL); both are closed in the test's teardown. */
export async function startFaultySystem(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string> = {},
  tweak?: Parameters<typeof startSystem>[1],
): Promise<FaultySystem> {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url, ...env }, tweak)
  let release!: () => void
  const untilTeardown = new Promise<void>((resolve) => (release = resolve))
  t.teardown(async () => {
    release()
    await system.close()
    await upstream.close()
  })
  return { system, upstream, untilTeardown }
}
