import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { type ReactNode, Suspense, use } from 'react'
import { renderToString } from 'react-dom/server'
import t from 'tap'
import { CLIENT_RENDERED_BOUNDARY } from '../../renderer/server/render.tsx'
import { type DeferredData, resolvedDeferred } from '../../renderer/app/screens/types.ts'
import { ROOT } from '../helpers/processes.ts'

// What the renderer takes from React beyond its documented API, pinned so that
// a React upgrade that changes it fails here rather than quietly in the pages:
// - render.tsx (renderComplete) tells a page with a failed or suspended
//   boundary from a whole one by React's client-rendered boundary marker in
//   renderToString's HTML, and counts on an error outside any boundary to throw;
// - screens/types.ts (resolvedDeferred) hands `use()` a promise already marked
//   as React marks the promises it has seen settle (`status`, `value`), so it
//   is read at once instead of suspending.
// Run with React's development build (tests, `npm run dev`) and again, in a
// child process, with its production build (the built renderer's).

const BUILD = process.env.NODE_ENV === 'production' ? 'production' : 'development'
const FALLBACK = 'het nieuws wordt geladen'

function Failing(): never {
  throw new Error('a block that fails on the server')
}

function Reads({ data }: { data: Promise<unknown> }) {
  return <p>{String(use(data))}</p>
}

/** As the home page reads its deferred data. */
function ReadsDeferred({ deferred }: { deferred: DeferredData }) {
  return <p>{String(use(deferred)?.title)}</p>
}

const inBoundary = (child: ReactNode) => (
  <main>
    <Suspense fallback={<p>{FALLBACK}</p>}>{child}</Suspense>
  </main>
)

t.test(`renderToString marks a boundary that failed with ${CLIENT_RENDERED_BOUNDARY}, and does not throw (${BUILD})`, async (t) => {
  const html = renderToString(inBoundary(<Failing />))
  t.ok(html.includes(CLIENT_RENDERED_BOUNDARY), 'marked', { html })
  t.ok(html.includes(FALLBACK), 'the fallback stands in for it')
})

t.test(`renderToString marks a boundary that suspended with ${CLIENT_RENDERED_BOUNDARY} (${BUILD})`, async (t) => {
  const html = renderToString(inBoundary(<Reads data={new Promise(() => {})} />))
  t.ok(html.includes(CLIENT_RENDERED_BOUNDARY), 'marked', { html })
})

t.test(`a whole render has no ${CLIENT_RENDERED_BOUNDARY}: use() reads resolvedDeferred's promise without suspending (${BUILD})`, async (t) => {
  const html = renderToString(inBoundary(<ReadsDeferred deferred={resolvedDeferred({ title: 'Laatste nieuws' })} />))
  t.notOk(html.includes(CLIENT_RENDERED_BOUNDARY), 'not marked', { html })
  t.notOk(html.includes(FALLBACK), 'no fallback')
  t.match(html, '<p>Laatste nieuws</p>', 'the value, at once')
  const unmarked = renderToString(inBoundary(<ReadsDeferred deferred={Promise.resolve({ title: 'Laatste nieuws' })} />))
  t.ok(unmarked.includes(CLIENT_RENDERED_BOUNDARY), 'the same data in an unmarked promise suspends: the marking is what counts')
})

t.test(`renderToString throws for an error outside any boundary (${BUILD})`, async (t) => {
  t.throws(() => renderToString(<main><Failing /></main>), { message: 'a block that fails on the server' })
})

t.test(`React marks a promise it has seen settle as resolvedDeferred does: status and value, or status and reason (${BUILD})`, async (t) => {
  const fulfilled = Promise.resolve('klaar') as Promise<string> & { status?: string; value?: unknown }
  const rejected = Promise.reject(new Error('mislukt')) as Promise<string> & { status?: string; reason?: unknown }
  rejected.catch(() => {})
  renderToString(
    inBoundary(
      <>
        <Reads data={fulfilled} />
        <Reads data={rejected} />
      </>,
    ),
  )
  await Promise.allSettled([fulfilled, rejected])
  t.equal(fulfilled.status, 'fulfilled')
  t.equal(fulfilled.value, 'klaar')
  t.equal(rejected.status, 'rejected')
  t.match(rejected.reason, { message: 'mislukt' })
  const marked = resolvedDeferred(null) as Promise<unknown> & { status?: string; value?: unknown }
  t.same([marked.status, marked.value], ['fulfilled', null], 'resolvedDeferred sets the same fields, to the same values')
})

if (BUILD === 'development') {
  t.test("the same with React's production build, which the built renderer bundles", async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    t.equal(code, 0, 'they pass', { output })
    t.match(output, /^ok \d+ - .*\(production\)/m, 'they ran, with the production build')
  })
}
