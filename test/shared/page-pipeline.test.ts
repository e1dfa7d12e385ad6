import t from 'tap'
import { loadPipeline, pipelineProblems, renderPath } from '../helpers/page-pipeline.ts'
import { ROOT } from '../helpers/processes.ts'

/**
 * A page's way through the code agrees with itself: the content model, the
 * documents, the route table, the embedded CMS's schema and content, the
 * content types, the screens and docs/craft.md's table. What each check
 * catches is a step of a recipe in docs/development.md left out
 * (test/docs-recipes.test.ts leaves out each in turn).
 */
const pipeline = await loadPipeline(ROOT)

t.test('the tables agree: every field read, typed, used and given content; every single routed and linked; every list read', async (t) => {
  t.same(pipelineProblems(pipeline), [])
})

const escaped = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;')

t.test("every fixed path's screen renders its own entry from the embedded content", async (t) => {
  for (const path of pipeline.routes.staticPaths()) {
    const found = pipeline.routes.match(path)
    if (found.kind !== 'route') continue
    const own = found.route.loaders.find((loader) => loader.requiresEntry)
    const html = await renderPath(pipeline, path)
    if (!own) continue
    const variables = own.variables({ site: pipeline.product, params: found.params, page: 1 })
    const entry =
      found.route.handle !== undefined
        ? pipeline.store.findEntries({ section: [found.route.handle] }, undefined)[0]
        : pipeline.store.findEntries({ slug: [String(variables.slug)] }, undefined)[0]
    t.ok(entry, `${path}: its entry is in the embedded content`)
    if (entry) t.ok(html.includes(escaped(entry.title)), `${path} (${found.route.screen}) shows "${entry.title}"`)
  }
})
