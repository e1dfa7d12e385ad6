import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import t from 'tap'
import { imageNodeMajor } from '../scripts/image-node.mjs'
import { ROOT } from './helpers/processes.ts'

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>
}
const supported = manifest.engines.node

t.test('every installed package accepts every Node the project declares: npm install prints no EBADENGINE', async (t) => {
  const refusing = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
    .filter(([, entry]) => !semver.subset(supported, (entry.engines as { node: string }).node, { includePrerelease: false }))
    .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${(entry.engines as { node: string }).node}`)
  t.same(refusing, [], `every package's engines.node contains ${supported}`)
  t.equal(lock.packages['']?.engines && !Array.isArray(lock.packages[''].engines) ? lock.packages[''].engines.node : undefined, supported, 'the lockfile was made with the same declaration')
})

t.test('the declared Node versions are the ones the suite runs on: this machine\'s and the image\'s', async (t) => {
  t.ok(semver.satisfies(process.versions.node, supported), `Node ${process.versions.node} (running this test) is within ${supported}`)
  const image = imageNodeMajor()
  t.ok(semver.subset(`^${image}.0.0`, supported), `the image's Node ${image} is within ${supported}`)
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  t.match(readme, `\`${supported}\``, 'the README states the same range')
})
