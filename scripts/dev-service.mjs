// A service process of `npm run dev`, started before it is needed: it loads
// the packages its bundle imports, says so, and waits. Told to run (an IPC
// message), it runs the bundle, so a restart after a rebuild costs only the
// project's own code, not node's start and every package's.
import { pathToFileURL } from 'node:url'

const [bundle, ...packages] = process.argv.slice(2)
const loaded = Promise.all(packages.map((name) => import(name).catch(() => {})))
// dev.mjs went away before this one was needed.
const leave = () => process.exit(0)
process.once('disconnect', leave)
process.once('message', async () => {
  process.off('disconnect', leave)
  // Not from within the message's own handler, which Node does not allow.
  setImmediate(() => process.disconnect())
  await loaded
  await import(pathToFileURL(bundle).href)
})
await loaded
if (process.connected) process.send('loaded')
