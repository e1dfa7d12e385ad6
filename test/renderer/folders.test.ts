import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import t from 'tap'
import { serverBuildOptions } from '../../scripts/build-steps.mjs'
import { ROOT } from '../helpers/processes.ts'

/**
 * The renderer's folders say who runs a file: renderer/server/ only the
 * renderer's process, renderer/client/ only the browser, renderer/app/ both.
 * Held on the files esbuild reads for each bundle, imports through other
 * files included, whether or not their code is used.
 */
interface Metafile {
  inputs: Record<string, { imports: { path: string; external?: boolean }[] }>
}

const under = (files: Iterable<string>, folder: string): string[] => [...files].filter((path) => path.startsWith(folder))

/** Every file the entry imports, through any number of files, whether or not its code is used. */
function reachedFrom({ inputs }: Metafile, entry: string): Set<string> {
  const reached = new Set([entry])
  for (const file of reached) for (const { path, external } of inputs[file]?.imports ?? []) if (!external) reached.add(path)
  return reached
}

t.test('the browser bundle, as `npm test` built it, holds no file of renderer/server/', async (t) => {
  const inputs = Object.keys((JSON.parse(readFileSync(join(ROOT, 'dist', 'client-meta.json'), 'utf8')) as Metafile).inputs)
  t.same(under(inputs, 'renderer/server/'), [])
  t.ok(under(inputs, 'renderer/app/').length > 0 && under(inputs, 'renderer/client/').length > 0, 'the bundle is made of app/ and client/')
})

t.test('the renderer imports no file of renderer/client/, the gateway none of renderer/', async (t) => {
  const result = await build({ ...serverBuildOptions(['gateway', 'renderer'], { dev: true, outdir: join(ROOT, 'unwritten') }), write: false, logLevel: 'silent' })
  const renderer = reachedFrom(result.metafile as Metafile, 'renderer/server/server.ts')
  t.same(under(renderer, 'renderer/client/'), [])
  t.ok(under(renderer, 'renderer/app/').length > 0, 'the renderer imports app/')
  t.same(under(reachedFrom(result.metafile as Metafile, 'gateway/server.ts'), 'renderer/'), [])
})
