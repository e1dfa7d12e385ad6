// Read once when the server starts: the bench's home-page payload (the gateway's /_payload.json, its primary and
// deferred parts), from the file BENCH_NUXT_DATA names.
import { readFileSync } from 'node:fs'

export default defineNitroPlugin(() => {
  globalThis.benchHome = JSON.parse(readFileSync(process.env.BENCH_NUXT_DATA, 'utf8'))
})
