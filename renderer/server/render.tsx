import { randomBytes, randomFillSync } from 'node:crypto'
import { PassThrough } from 'node:stream'
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import { CACHE_STATUS_HEADER, CSP_NONCE_HEADER, PRIVATE_NO_STORE, RENDER_OUTCOME_TRAILER } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { RENDER_TAGS_HEADER, joinRenderTags } from '../../shared/render-protocol/index.ts'
import { type ClientConfig, Document } from './document.tsx'
import { layoutPartsOfPayload } from './layout-parts.tsx'
import { NO_PAGE_PRELOADS, type PagePreloads } from './module-preloads.ts'
import type { DeferredData } from '../app/screens/types.ts'

export interface RenderOptions {
  payload: PagePayload
  deferred: DeferredData | null
  /** Whether the deferred data failed, so the page shows a placeholder instead of it; asked once the page is complete. */
  deferredFailed: () => boolean
  /**
   * The cache tags of the data rendered so far (the deferred data's once it came): what the answer says the page
   * showed; undefined when some of it came without its tags (the page then says none, and is not stored).
   */
  tags: () => readonly string[] | undefined
  cacheStatus: string | undefined
  /** Crawlers get the complete HTML before the first byte. */
  waitForAll: boolean
  stylesheet: string
  /** The stylesheet's text, to put in the head instead of linking it; undefined: linked. */
  inlineStylesheet: string | undefined
  /** Entry module of the browser bundle; absent when the bundle is not built. */
  clientEntry: string | undefined
  /** Whether the page is in Craft's live preview (preview-bar.tsx): no bar then. */
  livePreview?: boolean
  /** The live preview's entry (client/live-preview.ts), for a page in Craft's live preview only. */
  livePreviewEntry?: string | undefined
  /** Modules of the bundle the page needs before it can hydrate. */
  modulePreloads: PagePreloads
  /** The payload as script-safe JSON when it came as such (render requests from the gateway). */
  payloadJson?: string | undefined
  client: ClientConfig
  timeoutMs: number
  log: FastifyBaseLogger
}

/** 128-bit nonces cut from one pooled read of the system's randomness: a read per page showed in the profile. */
const NONCE_BYTES = 16
const noncePool = Buffer.alloc(NONCE_BYTES * 256)
let nonceOffset = noncePool.length
function nextNonce(): string {
  if (nonceOffset + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool)
    nonceOffset = 0
  }
  const nonce = noncePool.toString('base64', nonceOffset, nonceOffset + NONCE_BYTES)
  nonceOffset += NONCE_BYTES
  return nonce
}

const SHELL_ERROR_PAGE = `<!DOCTYPE html><html lang="nl"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Er is iets misgegaan.</title><link rel="stylesheet" href="/styles.css"></head><body><main class="main"><div class="container"><h1>Er is iets misgegaan.</h1><p>Probeer het later opnieuw.</p></div></main></body></html>`

/** What the page's answer says before its body, whichever way it is rendered. */
function startReply(reply: FastifyReply, options: RenderOptions, status: number, nonce: string): void {
  const { payload } = options
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', payload.preview || status !== 200 ? PRIVATE_NO_STORE : 'public, max-age=0, must-revalidate')
  if (options.cacheStatus) reply.header(CACHE_STATUS_HEADER, options.cacheStatus)
  reply.header(CSP_NONCE_HEADER, nonce)
  if (payload.preview || status !== 200) reply.header('x-robots-tag', 'noindex')
}

/** The page's document; `entryScript` for a render without React's bootstrap option. */
function documentOf(options: RenderOptions, nonce: string, entryScript: string | undefined) {
  return (
    <Document
      payload={options.payload}
      deferred={options.deferred}
      stylesheet={options.stylesheet}
      inlineStylesheet={options.inlineStylesheet}
      client={options.client}
      modulePreloads={options.clientEntry ? options.modulePreloads : NO_PAGE_PRELOADS}
      nonce={nonce}
      payloadJson={options.payloadJson}
      entryScript={entryScript}
      livePreview={options.livePreview}
      livePreviewEntry={options.livePreviewEntry}
      layoutParts={layoutPartsOfPayload(options.payload)}
    />
  )
}

const DOCTYPE = '<!DOCTYPE html>'
const DOCTYPE_BYTES = Buffer.from(DOCTYPE)

/** Marks React leaves in the HTML of a Suspense boundary that failed on the server and is left to the browser. */
export const CLIENT_RENDERED_BOUNDARY = '<!--$!-->'

/**
 * A page whose data is all at hand, rendered in one synchronous pass and
 * sent whole: nothing would arrive later, so streaming buys no earlier
 * byte, and React's string renderer does the same work in a third of the
 * time. renderToString keeps errors to itself (a failed boundary is left to
 * the browser, silently): a page with any sign of one returns false, and is
 * rendered again by the streaming path, which reports and logs the error.
 */
export function renderComplete(reply: FastifyReply, options: RenderOptions): boolean {
  const nonce = nextNonce()
  const { inlineStylesheet, payloadJson } = options
  let html: string
  try {
    // The two long texts of a page go in as slots (below), each filled with its bytes afterwards.
    html = renderToString(
      documentOf({ ...options, inlineStylesheet: inlineStylesheet === undefined ? undefined : STYLESHEET_SLOT, payloadJson: payloadJson === undefined ? undefined : PAYLOAD_SLOT }, nonce, options.clientEntry),
    )
  } catch {
    return false
  }
  if (html.indexOf(CLIENT_RENDERED_BOUNDARY) !== -1) return false
  const page = filledSlots(html, inlineStylesheet, payloadJson)
  if (page === undefined) return false
  startReply(reply, options, options.payload.status, nonce)
  reply.header(RENDER_OUTCOME_TRAILER, 'complete')
  const tags = options.tags()
  if (tags) reply.header(RENDER_TAGS_HEADER, joinRenderTags(tags))
  reply.send(page)
  return true
}

/**
 * The inline stylesheet (about 12 KB, the same on every page) and the
 * payload's JSON (10 KB on the home page) are more than half a page. Put
 * into React's string they are copied as it joins its pieces, and again as
 * the string becomes bytes (turning its pieces into one string was 5 % of
 * the renderer's time in a profile). Instead React writes a slot for each,
 * a comment no content can hold (a random name), and the page's bytes are
 * joined once: the stylesheet's bytes made at start, the payload's encoded
 * from its text.
 */
const SLOT_NAME = randomBytes(12).toString('hex')
const STYLESHEET_SLOT = `<!--stylesheet ${SLOT_NAME}-->`
const PAYLOAD_SLOT = `<!--payload ${SLOT_NAME}-->`

/** The stylesheet's bytes, made once for its text. */
let stylesheetBytes: { text: string; bytes: Buffer } | undefined
function bytesOfStylesheet(text: string): Buffer {
  if (stylesheetBytes?.text !== text) stylesheetBytes = { text, bytes: Buffer.from(text) }
  return stylesheetBytes.bytes
}

/** The doctype and `html` with its slots filled, as one buffer; undefined when a slot given is not there once. */
function filledSlots(html: string, stylesheet: string | undefined, payloadJson: string | undefined): Buffer | undefined {
  const pieces: Buffer[] = [DOCTYPE_BYTES]
  let from = 0
  for (const [slot, fill] of [
    [STYLESHEET_SLOT, stylesheet === undefined ? undefined : bytesOfStylesheet(stylesheet)],
    [PAYLOAD_SLOT, payloadJson === undefined ? undefined : Buffer.from(payloadJson)],
  ] as const) {
    if (fill === undefined) continue
    const at = html.indexOf(slot, from)
    if (at === -1) return undefined
    pieces.push(Buffer.from(html.slice(from, at)), fill)
    from = at + slot.length
  }
  pieces.push(Buffer.from(html.slice(from)))
  return Buffer.concat(pieces)
}

/**
 * Streams a page: headers and the shell as soon as the shell is ready (or
 * everything at once for crawlers), Suspense boundaries as their data
 * arrives; a render that takes too long is aborted, never left hanging.
 */
export function renderPage(reply: FastifyReply, options: RenderOptions): Promise<void> {
  const { payload } = options
  return new Promise((resolve) => {
    let settled = false
    const finish = (): void => {
      if (!settled) {
        settled = true
        resolve()
      }
    }
    const body = new PassThrough()
    const nonce = nextNonce()
    body.on('close', finish)
    let failed = false
    const start = (): void => {
      startReply(reply, options, failed ? 500 : payload.status, nonce)
      // The tags known now in the header (for the headers that go out before the page's end), all of them in the
      // trailer; a trailer whose function fails is left out, as unknown tags are.
      const known = options.tags()
      if (known) reply.header(RENDER_TAGS_HEADER, joinRenderTags(known))
      reply.trailer(RENDER_OUTCOME_TRAILER, async () => (failed || options.deferredFailed() ? 'degraded' : 'complete'))
      reply.trailer(RENDER_TAGS_HEADER, async () => {
        const tags = options.tags()
        if (!tags) throw new Error('the tags of some of the data are unknown')
        return joinRenderTags(tags)
      })
      reply.send(body)
      stream.pipe(body)
    }
    const stream = renderToPipeableStream(documentOf(options, nonce, undefined), {
      ...(options.clientEntry ? { bootstrapModules: [options.clientEntry] } : {}),
      nonce,
      onShellReady() {
        if (!options.waitForAll) start()
      },
      onAllReady() {
        if (options.waitForAll) start()
      },
      onShellError(error) {
        options.log.error({ err: error }, 'the page shell failed to render')
        clearTimeout(timer)
        reply.code(500).type('text/html; charset=utf-8').header('cache-control', PRIVATE_NO_STORE).send(SHELL_ERROR_PAGE)
        finish()
      },
      onError(error) {
        if (body.destroyed) {
          options.log.debug({ err: error }, 'the visitor left before the page was complete')
          return
        }
        failed = true
        options.log.error({ err: error }, 'render error')
      },
    })
    const timer = setTimeout(() => {
      options.log.warn({ path: payload.path }, 'render timed out; aborting')
      stream.abort(new Error('render timeout'))
    }, options.timeoutMs)
    body.on('close', () => clearTimeout(timer))
    body.on('finish', () => clearTimeout(timer))
  })
}
