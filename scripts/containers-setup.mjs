// Step 1 of scripts/test-containers.mjs: the tools, a running dockerd, and the base images the Dockerfile and the
// stack use (pulled, or made by BASE_IMAGES_SCRIPT where Docker Hub cannot be reached).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { setTimeout as pause } from 'node:timers/promises'

const DOCKER = '/usr/bin/docker'
/** A script that makes the base images where Docker Hub cannot be reached (none by default: they are pulled). */
const BASE_IMAGES_SCRIPT = process.env.BASE_IMAGES_SCRIPT
const log = (...parts) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...parts)
const dockerOk = (args) => spawnSync(DOCKER, args, { stdio: 'ignore' }).status === 0

export function ensureTools() {
  const needed = [
    { binary: DOCKER, pkg: 'docker.io' },
    { binary: '/usr/bin/docker-compose', pkg: 'docker-compose' },
    { binary: '/usr/sbin/debootstrap', pkg: 'debootstrap' },
  ].filter(({ binary }) => !existsSync(binary))
  if (needed.length === 0) return
  const names = needed.map(({ pkg }) => pkg).join(' ')
  log(`installing ${names} from Debian's packages`)
  const sudo = process.getuid?.() === 0 ? '' : 'sudo '
  execFileSync('sh', ['-c', `${sudo}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq ${names}`], { stdio: 'inherit' })
}

export async function ensureEngine() {
  if (dockerOk(['info'])) return
  log('starting dockerd (log: /tmp/dockerd-containers-test.log)')
  const { openSync } = await import('node:fs')
  const out = openSync('/tmp/dockerd-containers-test.log', 'a')
  spawn('/usr/sbin/dockerd', [], { detached: true, stdio: ['ignore', out, out] }).unref()
  for (let tries = 0; !dockerOk(['info']); tries++) {
    if (tries > 120) throw new Error('dockerd did not answer within 60 s: see /tmp/dockerd-containers-test.log')
    await pause(500)
  }
}

export function ensureBaseImages() {
  const missing = ['node:26-trixie-slim', 'redis:7-alpine', 'nginx:1.27-alpine'].filter((image) => !dockerOk(['image', 'inspect', image]))
  if (missing.length === 0) return
  if (BASE_IMAGES_SCRIPT === undefined) {
    for (const image of missing) {
      log(`docker pull ${image}`)
      if (!dockerOk(['pull', image])) {
        throw new Error(`the base image ${image} could not be pulled: make ${missing.join(', ')} another way (docker load, a mirror), or set BASE_IMAGES_SCRIPT to a script that builds them`)
      }
    }
    return
  }
  if (!existsSync(BASE_IMAGES_SCRIPT)) throw new Error(`missing base images ${missing.join(', ')}, and no ${BASE_IMAGES_SCRIPT} to make them`)
  const mirror = process.env.MIRROR ?? 'http://deb.debian.org/debian'
  const work = process.env.WORK ?? '/tmp/base-images-work'
  mkdirSync(work, { recursive: true })
  log(`making the base images ${missing.join(', ')} (several minutes)`)
  execFileSync('bash', [BASE_IMAGES_SCRIPT], { stdio: 'inherit', env: { ...process.env, PATH: `/usr/bin:${process.env.PATH}`, WORK: work, MIRROR: mirror } })
}
