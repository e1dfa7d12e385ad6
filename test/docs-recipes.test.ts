import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as React from 'react'
import t, { type Test } from 'tap'
import { loadPipeline, pipelineProblems, renderPath, rendererFile } from './helpers/page-pipeline.ts'
import { ROOT } from './helpers/processes.ts'

/**
 * The recipes of docs/development.md, followed in a copy of the code: with
 * every step, the tables agree and the page shows what was added; without
 * any one step, the checks of test/shared/page-pipeline.test.ts say so.
 */

// The copy is outside tsconfig.json's `include`, so tsx compiles its JSX for the classic runtime, which names React.
Object.assign(globalThis, { React })

interface Step {
  /** What the recipe's step names first: a file, or the command. */
  names: string
  apply: (root: string) => Promise<void> | void
  /** What the checks say when this step is left out. */
  caught: RegExp
}

interface Recipe {
  heading: string
  steps: Step[]
  /** A path that shows what the recipe added, and the text it must show. */
  shows: [path: string, text: string]
}

/** Puts `text` after (or instead of) `anchor` in a file of the copy; an anchor gone means the recipe is out of date. */
function edit(root: string, file: string, anchor: string | RegExp, text: string, how: 'after' | 'before' | 'instead' = 'after'): void {
  const path = file.startsWith('/') ? file : join(root, file)
  const source = readFileSync(path, 'utf8')
  const match = typeof anchor === 'string' ? (source.includes(anchor) ? anchor : undefined) : anchor.exec(source)?.[0]
  if (match === undefined) throw new Error(`${file}: no ${String(anchor)}; the recipe in docs/development.md needs updating`)
  const replaced = how === 'instead' ? text : how === 'after' ? `${match}${text}` : `${text}${match}`
  writeFileSync(path, source.replace(match, replaced))
}

function editJson(root: string, file: string, change: (json: { entries?: Record<string, any>[]; globalSets?: Record<string, any>[] }) => void): void {
  const path = join(root, 'gateway/embedded-cms/content', file)
  const json = JSON.parse(readFileSync(path, 'utf8'))
  change(json)
  writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`)
}

const entry = (id: string, section: string, type: string, title: string, slug: string, uri: string | null, fields: Record<string, unknown>) => ({
  id,
  section,
  type,
  title,
  slug,
  uri,
  postDate: '2026-11-01T09:00:00+01:00',
  dateUpdated: '2026-11-01T09:00:00+01:00',
  enabled: true,
  fields,
})

/** `npm run craft-model -- --write docs/craft.md`, in the copy (in this process: a table it cannot make throws here, where the command would exit). */
const craftModel: Step = {
  names: 'npm run craft-model -- --write docs/craft.md',
  apply: async (root) => {
    const { craftModelTable } = (await import(pathToFileURL(join(root, 'scripts/craft-model.mjs')).href)) as { craftModelTable: () => string }
    const made = craftModelTable()
    const docs = join(root, 'docs/craft.md')
    const text = readFileSync(docs, 'utf8')
    const begin = text.indexOf(made.slice(0, made.indexOf('\n')))
    const endMarker = made.slice(made.lastIndexOf('\n') + 1)
    writeFileSync(docs, `${text.slice(0, begin)}${made}${text.slice(text.indexOf(endMarker) + endMarker.length)}`)
  },
  caught: /docs\/craft\.md: the table of the Craft model is out of date/,
}

const START_DATE = 'Per 1 februari 2027'

const addField: Recipe = {
  heading: 'Add a field',
  steps: [
    { names: 'shared/content-model.ts', apply: (root) => edit(root, 'shared/content-model.ts', "date('validThrough'),", "\n        plain('startDate'),"), caught: /Cannot query field "startDate"/ },
    { names: 'shared/operations.ts', apply: (root) => edit(root, 'shared/operations.ts', 'salaryHours validThrough', ' startDate'), caught: /field job_Entry\.startDate: in the content model, but no document reads it/ },
    { names: 'shared/content-types.ts', apply: (root) => edit(root, 'shared/content-types.ts', 'export interface Job extends JobSummary {\n', '  startDate: string | null\n'), caught: /field job_Entry\.startDate: read, but not typed/ },
    {
      names: 'gateway/embedded-cms/content/',
      apply: (root) => editJson(root, 'site-jobs.json', (json) => json.entries?.forEach((job) => (job.fields.startDate = START_DATE))),
      caught: /field jobs\.startDate: no entry of the embedded content has a value/,
    },
    {
      names: 'renderer/app/screens/',
      apply: (root) => edit(root, rendererFile(root, 'job-screen.tsx'), "    { term: 'Dienstverband', details: job.employmentType },", "\n    { term: 'Startdatum', details: job.startDate },"),
      caught: /field job_Entry\.startDate: read, but no screen or gateway code uses it/,
    },
    craftModel,
  ],
  shows: ['/werken-bij/allround-schadebehandelaar', START_DATE],
}

const addFixedPage: Recipe = {
  heading: 'Add a fixed page',
  steps: [
    { names: 'shared/sections.ts', apply: (root) => edit(root, 'shared/sections.ts', "  'aboutJobsOpenApplication',\n", "  '{product}Accessibility',\n"), caught: /no single section \{product\}Accessibility/ },
    {
      names: 'shared/routes.ts',
      apply: (root) => edit(root, 'shared/routes.ts', "  singlePage('privacy', '{product}PrivacyAndCookiePolicy', ['/privacy']),", "\n  singlePage('accessibility', '{product}Accessibility', ['/toegankelijkheid']),"),
      caught: /single havenborgAccessibility: no route shows it/,
    },
    {
      names: 'gateway/embedded-cms/content/',
      apply: (root) =>
        editJson(root, 'site-pages.json', (json) =>
          json.entries?.push(
            entry('117', '{product}Accessibility', '{product}Accessibility', 'Toegankelijkheid', 'toegankelijkheid', 'toegankelijkheid', {
              intro: 'Iedereen moet deze site kunnen gebruiken.',
              text: '<p>Zo maken wij de site toegankelijk.</p>',
              seoDescription: 'Hoe Havenborg de site toegankelijk maakt.',
            }),
          ),
        ),
      caught: /section havenborgAccessibility: no entry in gateway\/embedded-cms\/content/,
    },
    {
      names: 'gateway/embedded-cms/content/site-globals.json',
      apply: (root) => edit(root, 'gateway/embedded-cms/content/site-globals.json', '{ "label": "Disclaimer", "url": "/disclaimer" },', '\n          { "label": "Toegankelijkheid", "url": "/toegankelijkheid" },'),
      caught: /page \/toegankelijkheid: no link to it/,
    },
    craftModel,
  ],
  shows: ['/toegankelijkheid', 'Zo maken wij de site toegankelijk.'],
}

const QUOTE = 'Snel geholpen na de storm, zonder gedoe.'
const TESTIMONIAL_LIST = `function testimonialListDocument(types: EntryTypes): string {
  return \`query TestimonialList($site: [String]) {
  entries(section: "\${CHANNELS.testimonials.section}", site: $site) {
    ...EntryBase ... on \${types.channel('testimonials')} { quote }
  }
}
\${ENTRY_BASE}\`
}

`
const TESTIMONIALS_SECTION = `
      {testimonials.length > 0 ? (
        <section className="section container" aria-labelledby="klanten">
          <h2 id="klanten">Klanten over ons</h2>
          {testimonials.map((testimonial) => (
            <blockquote key={testimonial.id}>{testimonial.quote}</blockquote>
          ))}
        </section>
      ) : null}`

const addListSection: Recipe = {
  heading: 'Add a list section',
  steps: [
    { names: 'shared/sections.ts', apply: (root) => edit(root, 'shared/sections.ts', "  redirects: { section: 'redirects', type: 'redirect' },", "\n  testimonials: { section: 'testimonials', type: 'testimonial' },"), caught: /reading 'section'/ },
    { names: 'shared/content-model.ts', apply: (root) => edit(root, 'shared/content-model.ts', "    channel('insurers', [plain('website')]),", "\n    channel('testimonials', [plain('quote')]),"), caught: /Unknown type "testimonial_Entry"/ },
    {
      names: 'shared/operations.ts',
      apply: (root) => {
        edit(root, 'shared/operations.ts', "  | 'InsurerList'\n", "  | 'TestimonialList'\n")
        edit(root, 'shared/operations.ts', 'function serviceDocuments(', TESTIMONIAL_LIST, 'before')
        edit(root, 'shared/operations.ts', '    ...serviceDocuments(types),', '\n    TestimonialList: testimonialListDocument(types),')
      },
      caught: /TestimonialList.*shared\/operations\.ts has no (such )?document/,
    },
    {
      names: 'shared/content-types.ts',
      apply: (root) => edit(root, 'shared/content-types.ts', '/** GraphQL `data` of each operation', "/** A customer's word on the office (the testimonials channel). */\nexport interface Testimonial extends EntryBase {\n  quote: string | null\n}\n\n", 'before'),
      caught: /field testimonial_Entry\.quote: read, but not typed/,
    },
    {
      names: 'shared/routes.ts',
      apply: (root) => edit(root, 'shared/routes.ts', '      { ...latestArticles(HOME_LATEST_ARTICLES), deferred: true },', "\n      list('testimonials', 'TestimonialList'),"),
      caught: /section testimonials: no route's document lists it/,
    },
    {
      names: 'gateway/embedded-cms/content/',
      apply: (root) =>
        writeFileSync(
          join(root, 'gateway/embedded-cms/content/site-testimonials.json'),
          JSON.stringify({ entries: [entry('1101', 'testimonials', 'testimonial', 'Familie De Vries', 'familie-de-vries', null, { quote: QUOTE })] }, null, 2),
        ),
      caught: /section testimonials: no entry in gateway\/embedded-cms\/content/,
    },
    {
      names: 'renderer/app/screens/',
      apply: (root) => {
        const screen = rendererFile(root, 'home-screen.tsx')
        edit(root, screen, /HomePage, LatestArticle \}/, 'HomePage, LatestArticle, Testimonial }', 'instead')
        edit(root, screen, '  if (!page) return null\n', "  const testimonials = entriesOf<Testimonial>(payload, 'testimonials')\n")
        edit(root, screen, '      </header>', TESTIMONIALS_SECTION)
      },
      caught: /route home: no screen reads its data 'testimonials'/,
    },
    craftModel,
  ],
  shows: ['/', QUOTE],
}

/** A copy of what the pipeline is made of, beside the repository's packages. */
function copyOfCode(): string {
  const root = mkdtempSync(join(tmpdir(), 'recipe-'))
  for (const path of ['shared', 'renderer', 'gateway', 'scripts/craft-model.mjs', 'scripts/generated-section.mjs', 'docs/craft.md', 'package.json', 'tsconfig.json']) {
    cpSync(join(ROOT, path), join(root, path), { recursive: true, filter: (source) => !source.includes('/embedded-cms/assets') })
  }
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
  return root
}

/** The checks' findings in a copy with these steps taken; a copy whose code does not load is one finding. */
async function followed(t: Test, steps: readonly Step[]): Promise<{ problems: string[]; root: string }> {
  const root = copyOfCode()
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  try {
    for (const step of steps) await step.apply(root)
    return { problems: pipelineProblems(await loadPipeline(root)), root }
  } catch (error) {
    return { problems: [`the code does not load: ${(error as Error).message}`], root }
  }
}

/** The first backticked word of each numbered step under the recipe's heading in docs/development.md. */
function documentedSteps(heading: string): string[] {
  const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8')
  const start = text.indexOf(`### ${heading}\n`)
  if (start === -1) return []
  const section = text.slice(start + heading.length + 5).split(/\n#{2,3} /)[0] ?? ''
  return [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((match) => match[1] as string)
}

for (const recipe of [addField, addFixedPage, addListSection]) {
  t.test(`docs/development.md's "${recipe.heading}", followed in a copy of the code`, async (t) => {
    t.same(documentedSteps(recipe.heading), recipe.steps.map((step) => step.names), 'the documented steps are the ones followed here, in order')
    const whole = await followed(t, recipe.steps)
    t.same(whole.problems, [], 'every step taken: the tables agree')
    const [path, text] = recipe.shows
    if (whole.problems.length === 0) t.match(await renderPath(await loadPipeline(whole.root), path), text, `${path} shows it`)
    for (const [index, left] of recipe.steps.entries()) {
      const { problems } = await followed(t, recipe.steps.filter((_, other) => other !== index))
      t.ok(problems.some((problem) => left.caught.test(problem)), `step ${index + 1} (${left.names}) left out: ${problems[0] ?? 'not caught'}`)
    }
  })
}
