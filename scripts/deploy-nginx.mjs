// The shipped front doors of deploy/, run on loopback ports in front of a given gateway: for test/deploy*.test.ts
// and the hardening measurements. Only what ties them to the containers changes (the ports, Docker's DNS name,
// where nginx keeps its files and finds the certificate); `edit` may change more (a test's smaller limits).
//   variant 'tls'       deploy/nginx.conf: https on 443 (HTTP/2) and a redirect on 80, as docker-stack.yml runs it
//   variant 'behind-lb' deploy/nginx-behind-lb.conf: plain HTTP behind a load balancer that ends TLS, started
//                       by deploy/nginx-behind-lb-start.sh with `trusted` as TRUSTED_LB_ADDRESSES
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './free-port.mjs'

export const NGINX = '/usr/sbin/nginx'
export const DEPLOY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy')
export const SHIPPED_NGINX_CONF = join(DEPLOY_DIR, 'nginx.conf')
export const BEHIND_LB_NGINX_CONF = join(DEPLOY_DIR, 'nginx-behind-lb.conf')
export const BEHIND_LB_START = join(DEPLOY_DIR, 'nginx-behind-lb-start.sh')
const MAIN_FILES = { tls: SHIPPED_NGINX_CONF, 'behind-lb': BEHIND_LB_NGINX_CONF }
/** Where the containers find the certificate and its key (Swarm secrets). */
export const TLS_FILES = { certificate: '/run/secrets/tls_certificate', key: '/run/secrets/tls_key' }
const TRUSTED_LB_INCLUDE = '/tmp/nginx-trusted-lb.conf'

/** A shipped main file with its includes of deploy/ put in place (`include name.conf;` beside it), as nginx reads it. */
export function shippedNginxConf(variant = 'tls') {
  return readFileSync(MAIN_FILES[variant], 'utf8').replace(/^(\s*)include (nginx-[a-z-]+\.conf);$/gm, (_line, indent, name) =>
    readFileSync(join(DEPLOY_DIR, name), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (line === '' ? line : indent + line))
      .join('\n'),
  )
}

/**
 * A shipped configuration (its includes in place) with nginx's files in `dir`, listening on 127.0.0.1 and ::1
 * (`port` for port 80, `tlsPort` for 443), proxying to `gatewayUrl`, with the certificate and key files given.
 */
export function loopbackNginxConf(shipped, { dir, port, tlsPort, gatewayUrl, tls }) {
  let config = shipped
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`)
    .replace(/^(\s*)listen \[::\]:80;$/m, `$1listen [::1]:${port};`)
    .replace(/^(\s*)set \$gateways [^;]+;$/m, `$1set $gateways ${gatewayUrl ?? 'http://127.0.0.1:9'};`)
    .replace(/^pid .*$/m, `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;`)
    .replace(`include ${TRUSTED_LB_INCLUDE};`, `include ${dir}/trusted-lb.conf;`)
    .replace('root /var/www/acme;', `root ${dir}/acme;`)
    .replace(
      /^http \{$/m,
      `http {\n  client_body_temp_path ${dir};\n  proxy_temp_path ${dir};\n  fastcgi_temp_path ${dir};\n  uwsgi_temp_path ${dir};\n  scgi_temp_path ${dir};`,
    )
  if (tlsPort !== undefined) {
    config = config
      .replace(/^(\s*)listen 443 ssl http2;$/m, `$1listen 127.0.0.1:${tlsPort} ssl http2;`)
      .replace(/^(\s*)listen \[::\]:443 ssl http2;$/m, `$1listen [::1]:${tlsPort} ssl http2;`)
      .replace(TLS_FILES.certificate, tls.certificate)
      .replace(TLS_FILES.key, tls.key)
  }
  return config
}

async function waitForNginx(url, exited) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (exited.done) return false
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.ok) return true
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${url} did not come up`)
}

/** The command that starts nginx on `dir`'s configuration: nginx itself, or behind a load balancer its start script. */
function nginxCommand(variant, dir, trusted) {
  const nginx = [NGINX, '-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;']
  if (variant !== 'behind-lb') return { command: nginx[0], args: nginx.slice(1), env: process.env }
  return { command: 'sh', args: [BEHIND_LB_START, ...nginx], env: { ...process.env, TRUSTED_LB_ADDRESSES: trusted, TRUSTED_LB_CONF: join(dir, 'trusted-lb.conf') } }
}

/**
 * Starts nginx with a shipped configuration on loopback ports; `edit(config)` may change it first. nginx cannot
 * say which port it got, so a port that was taken meanwhile (EADDRINUSE) means another try. `tls` (the variant
 * 'tls') names the certificate and key files; `trusted` (the variant 'behind-lb') the load balancer's addresses.
 */
export async function startDeployNginx({ variant = 'behind-lb', gatewayUrl, tls, trusted = '192.0.2.1', edit = (config) => config } = {}) {
  if (variant === 'tls' && tls === undefined) throw new Error("the variant 'tls' needs a certificate and key")
  const shipped = shippedNginxConf(variant)
  for (let attempt = 0; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'lb-'))
    const port = await freePort()
    const tlsPort = variant === 'tls' ? await freePort() : undefined
    const config = edit(loopbackNginxConf(shipped, { dir, port, tlsPort, gatewayUrl, tls }))
    writeFileSync(join(dir, 'nginx.conf'), config)
    const { command, args, env } = nginxCommand(variant, dir, trusted)
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const state = { done: false }
    const exited = new Promise((resolve) => child.on('exit', (code) => { state.done = true; resolve(code) }))
    const url = `http://127.0.0.1:${port}`
    const up = await waitForNginx(`${url}/nginx-health`, state)
    const errorLog = () => {
      try {
        return readFileSync(join(dir, 'error.log'), 'utf8')
      } catch {
        return ''
      }
    }
    if (up) {
      return {
        url,
        port,
        tlsPort,
        dir,
        config,
        output: () => output,
        errorLog,
        async close() {
          if (!state.done) child.kill('SIGQUIT')
          await exited
          rmSync(dir, { recursive: true, force: true })
        },
      }
    }
    const log = output + errorLog()
    rmSync(dir, { recursive: true, force: true })
    if (attempt < 4 && /Address already in use/.test(log)) continue
    throw new Error(`nginx did not start: ${log}`)
  }
}
