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
