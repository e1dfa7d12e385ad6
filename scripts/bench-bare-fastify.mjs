// The bench's second reference: a bare Fastify route answering the home
// page's bytes from a precomputed buffer.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = readFileSync(process.env.BODY_FILE)
const app = Fastify({ logger: false })
app.get('/', (_request, reply) => {
  reply.header('content-type', 'text/html; charset=utf-8').send(body)
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
