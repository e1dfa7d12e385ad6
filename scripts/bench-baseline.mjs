// A baseline commit's build for `npm run bench -- --baseline-commit=REV`:
// the commit's tree (git archive) in a folder of the run's own, its packages
// (the project's node_modules linked when the lockfiles are the same, else a
// clean install from the registry) and its own build. Its systems then run
// in the same rounds as this build's, each product scenario next to its
// twin, so that "no scenario slower" compares two builds on the same
// machine in the same minutes, not two runs hours apart.
import { execFileSync, execSync } from 'node:child_process'
import { readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { log, root, tempDir } from './bench-processes.mjs'

// A clone made by another user than the one running the bench is still this project's: git is told so, not asked.
const GIT = ['-c', `safe.directory=${root}`]

/** The commit's short name, or an error naming what git said. */
export function resolveCommit(rev) {
  try {
    return execFileSync('git', [...GIT, 'rev-parse', '--short', '--verify', `${rev}^{commit}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
  } catch (error) {
    throw new Error(`--baseline-commit=${rev}: not a commit of this repository (${String(error.stderr ?? error.message).trim()})`)
  }
}

/** Builds the commit in a folder of its own; returns its dist/ folder. */
export function buildBaseline(commit) {
  const dir = tempDir(`bench-baseline-${commit}-`)
  execSync(`git ${GIT.map((arg) => JSON.stringify(arg)).join(' ')} archive --format=tar ${commit} | tar -x -C ${JSON.stringify(dir)}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  const lock = (folder) => readFileSync(join(folder, 'package-lock.json'), 'utf8')
  if (lock(dir) === lock(root)) {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  } else {
    log(`baseline ${commit}: its package-lock.json differs, installing its packages`)
    execSync('npm ci --no-audit --no-fund --loglevel=error', { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
  }
  execSync('node scripts/build.mjs', { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
  log(`baseline ${commit} built in ${dir}`)
  return join(dir, 'dist')
}
