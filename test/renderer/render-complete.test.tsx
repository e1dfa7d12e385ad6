import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { renderToString } from 'react-dom/server'
import t from 'tap'
import { request } from 'undici'
import { Document } from '../../renderer/server/document.tsx'
import { NO_PAGE_PRELOADS } from '../../renderer/server/module-preloads.ts'
import { type RenderOptions, renderComplete } from '../../renderer/server/render.tsx'
import { CSP_NONCE_HEADER } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { scriptJson } from '../../shared/script-json.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * A page rendered whole gets its inline stylesheet and its payload's JSON
 * as bytes joined after React's render (renderer/server/render.tsx, filledSlots):
 * the page must be the one React writes with both in place, byte for byte.
 */
function capturingReply(): { reply: FastifyReply; sent: () => Buffer | undefined; headers: Record<string, string> } {
  const headers: Record<string, string> = {}
  let body: Buffer | undefined
  const reply = {
    code: () => reply,
    type: () => reply,
    header: (name: string, value: string) => {
      headers[name] = value
      return reply
    },
    send: (payload: Buffer) => {
      body = payload
      return reply
    },
  }
  return { reply: reply as unknown as FastifyReply, sent: () => body, headers }
}

// Non-ASCII in both, as in the real stylesheet (content: "…") and in Dutch content (Assurantiën).
const STYLESHEET = `body{font-family:system-ui}.more::after{content:"\u2026"}${'.x{color:red}'.repeat(200)}`

t.test('a page rendered whole holds its stylesheet and payload in their places, byte for byte', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  for (const path of ['/over-ons', '/contact']) {
    const payload = (await (await request(`${system.url}${path}/_payload.json`)).body.json()) as PagePayload
    const payloadJson = scriptJson(payload)
    const { reply, sent, headers } = capturingReply()
    const options: RenderOptions = {
      payload,
      deferred: null,
      deferredFailed: () => false,
      tags: () => [],
      cacheStatus: undefined,
      waitForAll: false,
      stylesheet: '/styles.css',
      inlineStylesheet: STYLESHEET,
      clientEntry: '/assets/app.js',
      modulePreloads: NO_PAGE_PRELOADS,
      payloadJson,
      client: { buildId: 'test', buildPollIntervalMs: 60_000 },
      timeoutMs: 5000,
      log: { error() {}, warn() {}, debug() {} } as unknown as FastifyBaseLogger,
    }
    t.ok(renderComplete(reply, options), `${path}: rendered whole`)
    const nonce = headers[CSP_NONCE_HEADER] ?? ''
    const expected = `<!DOCTYPE html>${renderToString(
      <Document
        payload={payload}
        deferred={null}
        stylesheet="/styles.css"
        inlineStylesheet={STYLESHEET}
        client={options.client}
        modulePreloads={NO_PAGE_PRELOADS}
        nonce={nonce}
        payloadJson={payloadJson}
        entryScript="/assets/app.js"
      />,
    )}`
    t.equal(sent()?.toString('utf8'), expected, `${path}: the page React writes`)
    t.match(sent()?.toString('utf8'), STYLESHEET, `${path}: the stylesheet in its place`)
  }
})
