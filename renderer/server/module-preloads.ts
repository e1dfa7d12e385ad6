import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { type PreloadModuleOptions, preloadModule } from 'react-dom'
import type { ScreenName } from '../../shared/routes.ts'

interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }>
}

/**
 * Browser modules a page needs before it can hydrate. Without them in the
 * HTML the browser finds each only once the module importing it has
 * arrived: the entry, then its chunks, then the screen, one after another.
 */
export interface ModulePreloads {
  /** What the entry imports statically: a few hundred bytes, fetched with the page. */
  entry: string[]
  /** The chunks the entry imports once the page has painted (`hydrate.tsx`), with their static imports. */
  hydration: string[]
  /** Each screen's chunk with the static imports the entry and hydration do not already bring. */
  screens: Partial<Record<ScreenName, string[]>>
}

/** One page's module preloads: in its head, and for the entry to add once the page has painted. */
export interface PagePreloads {
  withPage: string[]
  afterPaint: string[]
  /** Every screen's chunk and its imports, as file names in /assets/, for client navigations. */
  screens?: Partial<Record<ScreenName, string[]>>
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

/** Each chunk the entry imports dynamically, with that chunk's static imports, less what the entry already has. */
function hydrationClosure(metafile: Metafile, entry: string, entryImports: readonly string[]): string[] {
  const loaded = new Set<string>()
  for (const imported of metafile.outputs[entry]?.imports ?? []) {
    if (imported.kind !== 'dynamic-import') continue
    loaded.add(imported.path)
    for (const chunk of staticClosure(metafile, imported.path)) loaded.add(chunk)
  }
  return [...loaded].filter((chunk) => !entryImports.includes(chunk))
}

const NONE: ModulePreloads = { entry: [], hydration: [], screens: {} }
/** A page without a built bundle preloads nothing. */
export const NO_PAGE_PRELOADS: PagePreloads = { withPage: [], afterPaint: [] }

/** The preloads of a build whose entry is `clientEntry`; none for the metafile of another build. */
export function modulePreloadsOf(metafile: Metafile, clientEntry: string): ModulePreloads {
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('renderer/client/entry.tsx'))?.[0]
  if (!entry || assetUrl(entry) !== clientEntry) return NONE
  const entryImports = staticClosure(metafile, entry)
  const hydration = hydrationClosure(metafile, entry, entryImports)
  const before = [...entryImports, ...hydration]
  const screens: ModulePreloads['screens'] = {}
  for (const [path, output] of outputs) {
    const screen = /renderer\/app\/screens\/([a-z]+)-screen\.tsx$/.exec(output.entryPoint ?? '')?.[1] as ScreenName | undefined
    if (!screen) continue
    screens[screen] = [path, ...staticClosure(metafile, path).filter((chunk) => !before.includes(chunk))].map(assetUrl)
  }
  return { entry: entryImports.map(assetUrl), hydration: hydration.map(assetUrl), screens }
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

const screenFilesOf = new WeakMap<ModulePreloads, Partial<Record<ScreenName, string[]>>>()

/** The screens' modules as file names (the client resolves them beside its bundle): a third fewer bytes in every page. */
function screenFiles(preloads: ModulePreloads): Partial<Record<ScreenName, string[]>> {
  let files = screenFilesOf.get(preloads)
  if (!files) {
    files = Object.fromEntries(Object.entries(preloads.screens).map(([screen, urls]) => [screen, urls.map((url) => basename(url))]))
    screenFilesOf.set(preloads, files)
  }
  return files
}

/** What the page of `screen` preloads: the entry's chunks with the page; after its first paint the hydration's, then the screen's. */
export function preloadsFor(preloads: ModulePreloads, screen: ScreenName | 'error'): PagePreloads {
  let byScreen = preloadsOfScreen.get(preloads)
  if (byScreen === undefined) preloadsOfScreen.set(preloads, (byScreen = new Map()))
  let page = byScreen.get(screen)
  if (page === undefined) {
    const screenChunks = screen === 'error' ? [] : (preloads.screens[screen] ?? [])
    page = { withPage: preloads.entry, afterPaint: [...preloads.hydration, ...screenChunks], screens: screenFiles(preloads) }
    byScreen.set(screen, page)
  }
  return page
}

/** One PagePreloads per build and screen, the same object on every page of the screen: the document's config script is written once for it. */
const preloadsOfScreen = new WeakMap<ModulePreloads, Map<ScreenName | 'error', PagePreloads>>()
