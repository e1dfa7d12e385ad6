// `npm start`: the gateway and the renderer as two processes; Ctrl-C or
// SIGTERM stops both, and either one dying stops the other.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SERVICE_NODE_ARGS } from './service-node-args.mjs'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')

// Both run on this machine: unless told otherwise, each finds the other on the
// port it was given, so `PORT=8080 npm start` works without more settings.
const env = { ...process.env }
env.RENDERER_URL ??= `http://127.0.0.1:${env.RENDERER_PORT || 3001}`
env.GATEWAY_URL ??= `http://127.0.0.1:${env.PORT || 3000}`
// The renderer renders only what the gateway signs: one secret for both, made up for this run unless given.
if (!env.RENDER_SECRET?.trim()) env.RENDER_SECRET = randomBytes(32).toString('base64url')

const children = ['renderer', 'gateway'].map((name) => {
  const child = spawn(process.execPath, [...SERVICE_NODE_ARGS, join(dist, `${name}.js`)], { stdio: 'inherit', env })
  child.name = name
  return child
})

let stopping = false
const stopAll = (signal, code) => {
  if (!stopping) {
    stopping = true
    for (const child of children) if (child.exitCode === null) child.kill(signal)
  }
  if (children.every((child) => child.exitCode !== null || child.signalCode !== null)) process.exit(code)
}
for (const child of children) {
  child.on('exit', (code) => {
    if (!stopping) console.error(`${child.name} exited (${code ?? 'signal'}); stopping`)
    stopAll('SIGTERM', code ?? 0)
  })
}
process.on('SIGINT', () => stopAll('SIGTERM', 0))
process.on('SIGTERM', () => stopAll('SIGTERM', 0))
