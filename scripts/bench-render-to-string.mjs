// The bench's scenario 4r: the ceiling of the renderer alone (4a). A bare
// Fastify route that renders the home page with React's renderToString, from
// the same element tree with the same props as the renderer's renderComplete
// (renderer/server/render.tsx): the Document of the render request in
// RENDER_REQUEST_FILE (the one 4a posts), its rich text cleaned and its
// props made once at start, so each request is only the render and the send.
// What 4a does beyond it (reading and checking the request, parsing the
// payload, cleaning, the renderer's hooks, headers and metrics) is the
// renderer's own cost.
//
// It imports the renderer's TSX: `npm run bench` bundles it as the servers are
// bundled (React inside, built for production) into dist/bench/ and runs that.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Fastify from 'fastify'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { decodeRenderRequest } from '../shared/render-protocol/index.ts'
import { memoisedSanitizer, withCleanRichText } from '../shared/rich-text-sanitizer.ts'
import { loadRendererConfig } from '../renderer/config.ts'
import { Document } from '../renderer/server/document.tsx'
import { readInlineStylesheet } from '../renderer/server/inline-stylesheet.ts'
import { NO_PAGE_PRELOADS, preloadsFor, readModulePreloads } from '../renderer/server/module-preloads.ts'
import { resolvedDeferred } from '../renderer/app/screens/types.ts'

const config = loadRendererConfig()
const buildFile = join(config.distDir, 'build.json')
const build = existsSync(buildFile) ? JSON.parse(readFileSync(buildFile, 'utf8')) : { id: 'development', assets: {} }
const stylesheet = build.assets?.stylesheet ?? '/styles.css'
const clientEntry = build.assets?.client

const given = decodeRenderRequest(readFileSync(process.env.RENDER_REQUEST_FILE, 'utf8'))
if (!given) throw new Error('RENDER_REQUEST_FILE holds no render request')
const sanitize = memoisedSanitizer(config.richTextMemoMaxBytes)
const payload = withCleanRichText(given.payload, sanitize)
const props = {
  payload,
  deferred: given.deferred === undefined ? null : resolvedDeferred(withCleanRichText(given.deferred, sanitize)),
  stylesheet,
  inlineStylesheet: readInlineStylesheet(config.distDir, stylesheet),
  client: { buildId: build.id, buildPollIntervalMs: config.buildPollIntervalMs, ...(config.graphqlWsUrl ? { graphqlWsUrl: config.graphqlWsUrl } : {}) },
  modulePreloads: clientEntry ? preloadsFor(readModulePreloads(config.distDir, clientEntry), payload.screen) : NO_PAGE_PRELOADS,
  payloadJson: payload === given.payload ? given.payloadJson : undefined,
  entryScript: clientEntry,
  // A nonce of the renderer's length (16 bytes, base64); making one is not what is measured.
  nonce: 'AAAAAAAAAAAAAAAAAAAAAA==',
}

const app = Fastify({ logger: false })
app.get('/', (_request, reply) => {
  const html = renderToString(createElement(Document, props))
  reply.header('content-type', 'text/html; charset=utf-8').send(Buffer.from(`<!DOCTYPE html>${html}`))
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
