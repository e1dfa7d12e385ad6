import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The file named on the command line when the module at `moduleUrl` is the
 * script node was started with; undefined when it is imported. Exits with
 * code 2 and `usage` when the file is missing.
 */
export function mainFileArgument(moduleUrl, usage) {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return undefined
  const file = process.argv[2]
  if (!file) {
    console.error(`usage: ${usage}`)
    process.exit(2)
  }
  return file
}
