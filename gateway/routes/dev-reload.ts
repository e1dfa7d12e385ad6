import { type FSWatcher, readFileSync, watch } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { basename, dirname } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { DEV_GENERATION_TIMING, DEV_RELOAD_PATH } from '../../shared/constants.ts'

/** How soon a page's EventSource tries again after the gateway went away (it restarts in dev). */
const RETRY_MS = 250

function readGeneration(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    return ''
  }
}

/**
 * `npm run dev` only. `file` is written by scripts/dev.mjs once a restarted
 * service is ready; its content is the generation. Every answer names the
 * generation it was made in (Server-Timing, which the page can read), and
 * DEV_RELOAD_PATH streams the current one as server-sent events, on connect
 * and whenever it changes: a page reloads when the two differ.
 */
export function setUpDevReload(app: FastifyInstance, file: string): void {
  const streams = new Set<ServerResponse>()
  let generation = readGeneration(file)
  const event = (): string => `data: ${generation}\n\n`

  // The folder, not the file: a file replaced by rename would leave a watcher on the old one.
  const watcher: FSWatcher = watch(dirname(file), (_type, name) => {
    if (name !== basename(file)) return
    const next = readGeneration(file)
    if (next === '' || next === generation) return
    generation = next
    // A restarted renderer was skipped while it was away: checked now, so that the reloaded page is rendered, not a 503.
    void app.renderers
      .healthy()
      .catch(() => false)
      .then(() => {
        if (generation === next) for (const stream of streams) stream.write(event())
      })
  })

  app.addHook('onSend', async (_request, reply) => {
    if (generation !== '') reply.header('server-timing', `${DEV_GENERATION_TIMING};desc="${generation}"`)
  })

  app.get(DEV_RELOAD_PATH, (_request, reply) => {
    reply.hijack()
    const stream = reply.raw
    stream.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
    stream.write(`retry: ${RETRY_MS}\n\n${generation === '' ? '' : event()}`)
    streams.add(stream)
    stream.once('close', () => streams.delete(stream))
  })

  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => {
    watcher.close()
    for (const stream of streams) stream.end()
  })
}
