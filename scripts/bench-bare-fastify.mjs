// The bench's bare Fastify references. With BODY_FILE: a route answering the
// home page's bytes from a precomputed buffer (with HEADERS_FILE, under the
// headers the gateway sends with its cached page). With UPSTREAM_URL as well: a
// route that asks another bare server for the bytes over a kept-alive undici
// pool and sends them on, the gateway -> renderer hop with no work on either
// side (the floor of a page rendered on every request).
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { Pool } from 'undici'

const app = Fastify({ logger: false })
if (process.env.UPSTREAM_URL) {
  const upstream = new Pool(process.env.UPSTREAM_URL)
  app.get('/', async (_request, reply) => {
    const response = await upstream.request({ path: '/', method: 'GET' })
    const body = Buffer.from(await response.body.arrayBuffer())
    return reply.header('content-type', 'text/html; charset=utf-8').send(body)
  })
} else {
  const body = readFileSync(process.env.BODY_FILE)
  // HEADERS_FILE: the headers of the gateway's cached page, to tell their cost from the gateway's own.
  const headers = process.env.HEADERS_FILE ? JSON.parse(readFileSync(process.env.HEADERS_FILE, 'utf8')) : { 'content-type': 'text/html; charset=utf-8' }
  app.get('/', (_request, reply) => {
    reply.headers(headers).send(body)
  })
}
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
