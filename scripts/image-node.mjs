// The Node the container image runs (the Dockerfile's FROM line), installed
// from the npm registry's own packages (node-<platform>-<arch>, the binary the
// `node` package would pick) into .cache/, so `npm test` can run the suite on
// it as well as on the machine's Node without leaving the registries.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The major of `FROM node:<major>-…` in the Dockerfile (every stage uses the same). */
export function imageNodeMajor() {
  const majors = [...readFileSync(join(root, 'Dockerfile'), 'utf8').matchAll(/^FROM node:(\d+)[-\w.]*/gm)].map((match) => Number(match[1]))
  if (majors.length === 0 || majors.some((major) => major !== majors[0])) throw new Error(`the Dockerfile's stages must all be FROM node:<one major>, found ${majors.join(', ') || 'none'}`)
  return majors[0]
}

const folderOf = (major) => join(root, '.cache', `node-${major}`)
const packageName = `node-${process.platform}-${process.arch}`

/** Path of that Node's binary, installing it first when it is not there yet. */
export function ensureImageNode(major = imageNodeMajor()) {
  const folder = folderOf(major)
  const binary = join(folder, 'node_modules', packageName, 'bin', 'node')
  if (!existsSync(binary)) {
    console.log(`installing Node ${major} (${packageName}) from the npm registry, to run the suite on the image's Node too`)
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ private: true, description: `Node ${major} for npm test` }))
    const npm = process.env.npm_execpath
    const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []]
    execFileSync(command, [...args, 'install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${packageName}@${major}`], { cwd: folder, stdio: 'inherit' })
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
  if (!version.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version}, not Node ${major}`)
  return binary
}
