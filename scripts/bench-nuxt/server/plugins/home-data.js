// Read once when the server starts: the bench's home-page payload (the gateway's /_payload.json, its primary and
// deferred parts), from the file BENCH_NUXT_DATA names. Kept as text: each request parses its own copy (as a site
// gets its data from a fetch), since Vue's reactivity on one object shared by every request would tie each
// request's computed values to it for good, a leak and a growing cost.
import { readFileSync } from 'node:fs'

export default defineNitroPlugin(() => {
  globalThis.benchHomeJson = readFileSync(process.env.BENCH_NUXT_DATA, 'utf8')
})
