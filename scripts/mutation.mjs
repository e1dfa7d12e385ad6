// Mutation testing of the files changed since a commit (StrykerJS): each mutant
// is one small change to the product code, and a mutant that no related test
// fails on is a bug the tests would let through. A habit, not a gate: neither
// `npm test` nor CI runs it. See docs/testing.md (Mutation testing).
//
//   npm run mutation -- --since=9503962            the .ts/.tsx files under gateway/ shared/ renderer/ changed since then
//   npm run mutation -- --files=shared/logging.ts  these files only (comma-separated); a part of one: shared/logging.ts:17-59
//   options: --related=direct|graph (default direct), --tests=a.test.ts,… (added to the related ones),
//            --browser (test/e2e too), --count (instrument and count the mutants, run nothing),
//            --list (the files and their related tests only, Stryker not started),
//            --concurrency=N (default 1), --no-check (skip the TypeScript checker)
import { spawn, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, '.cache', 'mutation')
const PRODUCT_DIRS = ['gateway', 'shared', 'renderer']
const SOURCE_DIRS = [...PRODUCT_DIRS, 'test', 'scripts']
const SOURCE_FILE = /\.(?:ts|tsx|mts|mjs)$/
const MUTATED_FILE = /\.tsx?$/
const TEST_FILE = /\.test\.tsx?$/

function parseArguments(argv) {
  const options = { since: undefined, files: undefined, related: 'direct', tests: [], browser: false, count: false, list: false, concurrency: 1, check: true }
  for (const argument of argv) {
    const [name, value = ''] = argument.replace(/^--/, '').split(/=(.*)/s)
    if (name === 'since') options.since = value
    else if (name === 'files') options.files = value.split(',').filter(Boolean)
    else if (name === 'related' && ['direct', 'graph'].includes(value)) options.related = value
    else if (name === 'tests') options.tests = value.split(',').filter(Boolean)
    else if (name === 'browser') options.browser = true
    else if (name === 'count') options.count = true
    else if (name === 'list') options.list = true
    else if (name === 'concurrency' && /^[1-9][0-9]*$/.test(value)) options.concurrency = Number(value)
    else if (name === 'no-check') options.check = false
    else throw new Error(`unknown option ${argument} (see the head of scripts/mutation.mjs)`)
  }
  if (!options.since === !options.files) throw new Error('give --since=<commit> or --files=<a.ts,b.ts>')
  return options
}

/** The product's .ts/.tsx files changed since `commit` (the working tree included) that still exist. */
function changedSince(commit) {
  const names = execFileSync('git', ['diff', '--name-only', commit, '--', ...PRODUCT_DIRS], { cwd: ROOT, encoding: 'utf8' })
  return names.split('\n').filter((name) => MUTATED_FILE.test(name) && !name.endsWith('.d.ts') && existsSync(join(ROOT, name)))
}

function walk(dir) {
  const found = []
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) found.push(...walk(path))
    else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.d.mts')) found.push(path)
  }
  return found
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** A relative specifier as a file of the repository (path from the root), or undefined. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined
  const base = relative(ROOT, resolve(ROOT, dirname(from), specifier))
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (SOURCE_FILE.test(candidate) && existsSync(join(ROOT, candidate))) return candidate
  }
  return undefined
}

/** Each source file's relative imports, static and dynamic. */
function importGraph() {
  const graph = new Map()
  for (const file of SOURCE_DIRS.flatMap(walk)) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    const imports = new Set()
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveSpecifier(file, match[1] ?? match[2] ?? match[3])
      if (target) imports.add(target)
    }
    graph.set(file, imports)
  }
  return graph
}

/** Everything a file loads, itself included. */
function reachable(graph, file) {
  const seen = new Set([file])
  const queue = [file]
  while (queue.length > 0) {
    for (const next of graph.get(queue.pop()) ?? []) {
      if (!seen.has(next)) {
        seen.add(next)
        queue.push(next)
      }
    }
  }
  return seen
}

/**
 * The tests related to each file: `direct`, a test that imports the file itself, or the test at its mirror path
 * (gateway/payload/sitemap.ts -> test/gateway/payload/sitemap.test.ts); `graph`, a test that loads it through any
 * chain of imports (test helpers that build the whole app make most tests related to most files).
 */
function relatedTests(files, mode, browser) {
  const graph = importGraph()
  const tests = [...graph.keys()].filter((file) => file.startsWith('test/') && TEST_FILE.test(file) && (browser || !file.startsWith('test/e2e/')))
  const loads = new Map(tests.map((test) => [test, mode === 'graph' ? reachable(graph, test) : new Set([test, ...(graph.get(test) ?? [])])]))
  const byFile = new Map()
  for (const file of files) {
    const mirror = file.replace(/\.tsx?$/, '')
    const related = tests.filter((test) => loads.get(test)?.has(file) || test === `test/${mirror}.test.ts` || test === `test/${mirror}.test.tsx`)
    byFile.set(file, related)
  }
  return byFile
}

/**
 * The checker's project: the mutated files and their related tests (and what they import), not the whole
 * repository. A mutant that breaks the types of a file neither loads is not seen; checking every dependant of a
 * module as widely imported as shared/logging.ts costs seconds per mutant.
 */
function checkerTsconfig(files, testFiles) {
  return { extends: '../../tsconfig.json', include: [], files: [...new Set([...files, ...testFiles])].map((file) => `../../${file}`) }
}

function strykerConfig(options, files, testFiles) {
  const common = {
    $schema: '../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    packageManager: 'npm',
    mutate: files,
    concurrency: options.concurrency,
    tempDirName: '.cache/mutation/tmp',
    ignorePatterns: ['.cache/*', '!.cache/mutation', '.cache/mutation/*', '!.cache/mutation/tsconfig.json', '.tap', 'dist-dev', 'bench/profiles', 'lighthouse', 'deploy/secrets'],
    // esbuild (tsx) strips the types of a mutated file; the checker below asks TypeScript instead.
    disableTypeChecks: '{gateway,shared,renderer,test}/**/*.{ts,tsx}',
    cleanTempDir: 'always',
  }
  if (options.count) {
    return { ...common, testRunner: 'command', commandRunner: { command: 'node -e 0' }, coverageAnalysis: 'off', dryRunOnly: true, reporters: ['clear-text'] }
  }
  return {
    ...common,
    testRunner: 'tap',
    plugins: ['@stryker-mutator/tap-runner', ...(options.check ? ['@stryker-mutator/typescript-checker'] : [])],
    // Each test file is one test: a mutant runs only the related files that ran its code in the dry run.
    tap: { testFiles, nodeArgs: ['--import=tsx'], forceBail: true },
    coverageAnalysis: 'perTest',
    checkers: options.check ? ['typescript'] : [],
    tsconfigFile: '.cache/mutation/tsconfig.json',
    // The checker's option only with the checker: without its plugin Stryker warns of an unknown option.
    ...(options.check ? { typescriptChecker: { prioritizePerformanceOverAccuracy: true } } : {}),
    // The tests start services and wait on them: a mutant that hangs one is given its dry-run time twice, plus 30 s.
    timeoutMS: 30_000,
    timeoutFactor: 2,
    dryRunTimeoutMinutes: 60,
    reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
    htmlReporter: { fileName: '.cache/mutation/report.html' },
    jsonReporter: { fileName: '.cache/mutation/report.json' },
    thresholds: { high: 90, low: 80, break: null },
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2))
  const files = options.files ?? changedSince(options.since)
  if (files.length === 0) {
    console.log('mutation: no .ts/.tsx file of gateway/, shared/ or renderer/ to mutate')
    return
  }
  // A file's lines (`a.ts:17-59`, Stryker's own form) are related to the file's tests.
  const byFile = relatedTests([...new Set(files.map((file) => file.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, '')))], options.related, options.browser)
  const testFiles = [...new Set([...[...byFile.values()].flat(), ...options.tests])].sort()
  console.log(`mutation: ${files.length} file(s), ${testFiles.length} related test file(s) (${options.related})`)
  for (const [file, tests] of byFile) console.log(`  ${file}: ${tests.length === 0 ? 'no related test' : tests.join(' ')}`)
  if (options.list) return
  if (!options.count && testFiles.length === 0) throw new Error('no related test file: give some with --tests=')
  mkdirSync(OUT, { recursive: true })
  const configFile = join(OUT, 'stryker.config.json')
  writeFileSync(join(OUT, 'tsconfig.json'), `${JSON.stringify(checkerTsconfig([...byFile.keys()], testFiles), null, 2)}\n`)
  writeFileSync(configFile, `${JSON.stringify(strykerConfig(options, files, testFiles), null, 2)}\n`)
  const started = performance.now()
  const stryker = join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js')
  const child = spawn(process.execPath, [stryker, 'run', configFile], { cwd: ROOT, stdio: 'inherit' })
  // Stopped, it stops Stryker too (which stops its workers and test processes).
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => child.kill(signal))
  const code = await new Promise((done) => child.on('exit', done))
  console.log(`mutation: ${options.count ? 'counted' : 'ran'} in ${((performance.now() - started) / 60_000).toFixed(1)} min; config ${relative(ROOT, configFile)}${options.count ? '' : ', report .cache/mutation/report.html'}`)
  process.exitCode = code ?? 1
}

main().catch((error) => {
  console.error(`mutation: ${error.message}`)
  process.exitCode = 2
})
