import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { request } from 'undici'

export const ROOT = new URL('../..', import.meta.url).pathname

export interface Started {
  child: ChildProcess
  output: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Runs a built entry point (dist/...) or script as its own process, with exactly the given environment. */
export function startProcess(file: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [join(ROOT, file)], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** What a service says once all its listeners are open (shared/run-server.ts): its own address as bound, and the gateway's internal one. */
export interface ListeningLine {
  url: string
  /** The port of `url`. */
  port: number
  internal?: string
}

/**
 * Waits for a service's "listening" line, which names the addresses it bound
 * (give it port 0 and read them here). Rejects if the process exits first;
 * with code EADDRINUSE when a port it was told to bind was taken, so that a
 * start that had to name a port can be tried again (retryOnAddressInUse).
 */
export function listening(started: Pick<Started, 'child' | 'output'>, service: 'gateway' | 'renderer'): Promise<ListeningLine> {
  const message = `${service} listening`
  // A JSON line, or pino-pretty's single line with the fields in JSON after the message.
  const found = (): ListeningLine | undefined => {
    const line = started.output().split('\n').find((text) => text.includes(message) && text.includes('"url":'))
    const url = line && /"url":"([^"]+)"/.exec(line)?.[1]
    if (!line || !url) return undefined
    const internal = /"internal":"([^"]+)"/.exec(line)?.[1]
    const port = Number(new URL(url).port)
    return internal === undefined ? { url, port } : { url, port, internal }
  }
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const line = found()
      if (!line) return
      started.child.stdout?.off('data', check)
      started.child.off('exit', exited)
      resolve(line)
    }
    const exited = (): void => {
      started.child.stdout?.off('data', check)
      const line = found()
      if (line) return resolve(line)
      const output = started.output()
      reject(Object.assign(new Error(`the ${service} exited before it was listening:\n${output.slice(-2000)}`), output.includes('EADDRINUSE') ? { code: 'EADDRINUSE' } : {}))
    }
    started.child.stdout?.on('data', check)
    started.child.once('exit', exited)
    if (started.child.exitCode !== null || started.child.signalCode !== null) exited()
    else check()
  })
}

/**
 * Polls a URL until it answers (any status). The default bound (60 s) only
 * ends a wait for a process that never comes up: a loaded machine may take
 * many seconds to start several services at once.
 */
export async function waitForHttp(url: string, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    try {
      const response = await request(url)
      await response.body.dump()
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`${url} did not come up`)
}
