import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { type PreloadModuleOptions, preloadModule } from 'react-dom'
import type { ScreenName } from '../shared/routes.ts'

interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }>
}

/**
 * Browser modules a page needs before it can hydrate. Without them in the
 * HTML the browser finds each only once the module importing it has
 * arrived: the entry, then its chunks, then the screen, one after another.
 */
export interface ModulePreloads {
  /** Everything the entry imports statically, directly or through another chunk. */
  entry: string[]
  /** Each screen's chunk with the static imports the entry does not already bring. */
  screens: Partial<Record<ScreenName, string[]>>
}

const assetUrl = (outputPath: string): string => `/assets/${basename(outputPath)}`

function staticClosure(metafile: Metafile, start: string): string[] {
  const seen = new Set<string>()
  const visit = (path: string): void => {
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || seen.has(imported.path)) continue
      seen.add(imported.path)
      visit(imported.path)
    }
  }
  visit(start)
  return [...seen]
}

const NONE: ModulePreloads = { entry: [], screens: {} }

/** The preloads of a build whose entry is `clientEntry`; none for the metafile of another build. */
export function modulePreloadsOf(metafile: Metafile, clientEntry: string): ModulePreloads {
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('renderer/client/entry.tsx'))?.[0]
  if (!entry || assetUrl(entry) !== clientEntry) return NONE
  const entryImports = staticClosure(metafile, entry)
  const screens: ModulePreloads['screens'] = {}
  for (const [path, output] of outputs) {
    const screen = /renderer\/screens\/([a-z]+)-screen\.tsx$/.exec(output.entryPoint ?? '')?.[1] as ScreenName | undefined
    if (!screen) continue
    screens[screen] = [path, ...staticClosure(metafile, path).filter((chunk) => !entryImports.includes(chunk))].map(assetUrl)
  }
  return { entry: entryImports.map(assetUrl), screens }
}

/** The preloads of the built bundle (dist/client-meta.json); none when the bundle is not built. */
export function readModulePreloads(distDir: string, clientEntry: string | undefined): ModulePreloads {
  const file = join(distDir, 'client-meta.json')
  if (!clientEntry || !existsSync(file)) return NONE
  return modulePreloadsOf(JSON.parse(readFileSync(file, 'utf8')) as Metafile, clientEntry)
}

/**
 * Has React preload `hrefs` in the head of the page being rendered, at low
 * priority: the page is rendered on the server, so its first paint needs none
 * of them, and the document and its images should not wait for them (React
 * preloads a bootstrap module at low priority for the same reason). React
 * writes every option into the link; its types leave out `fetchPriority`.
 */
export function preloadModules(hrefs: string[], nonce: string): void {
  for (const href of hrefs) preloadModule(href, { as: 'script', nonce, fetchPriority: 'low' } as PreloadModuleOptions)
}

/** What the page of `screen` preloads: the entry's chunks, then the screen's. */
export function preloadsFor(preloads: ModulePreloads, screen: ScreenName | 'error'): string[] {
  return screen === 'error' ? preloads.entry : [...preloads.entry, ...(preloads.screens[screen] ?? [])]
}
