// deploy/nginx.conf as shipped, run on a loopback port in front of a given
// gateway: for test/deploy.test.ts and the hardening measurements. Only what
// ties it to the containers changes (port 80, Docker's DNS name, where nginx
// keeps its files); `edit` may change more (a test's smaller limits).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './free-port.mjs'

export const NGINX = '/usr/sbin/nginx'
export const SHIPPED_NGINX_CONF = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'nginx.conf')

/** The shipped configuration with nginx's files in `dir`, listening on 127.0.0.1:`port`, proxying to `gatewayUrl`. */
export function loopbackNginxConf(shipped, { dir, port, gatewayUrl }) {
  return shipped
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`)
    .replace(/^(\s*)set \$gateways [^;]+;$/m, `$1set $gateways ${gatewayUrl ?? 'http://127.0.0.1:9'};`)
    .replace(/^pid .*$/m, `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;`)
    .replace(
      /^http \{$/m,
      `http {\n  client_body_temp_path ${dir};\n  proxy_temp_path ${dir};\n  fastcgi_temp_path ${dir};\n  uwsgi_temp_path ${dir};\n  scgi_temp_path ${dir};`,
    )
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

/**
 * Starts nginx with deploy/nginx.conf on a loopback port; `edit(config)`
 * may change the configuration first. nginx cannot say which port it got,
 * so a port that was taken meanwhile (EADDRINUSE) means another try.
 */
export async function startDeployNginx({ gatewayUrl, edit = (config) => config } = {}) {
  const shipped = readFileSync(SHIPPED_NGINX_CONF, 'utf8')
  for (let attempt = 0; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'lb-'))
    const port = await freePort()
    const config = edit(loopbackNginxConf(shipped, { dir, port, gatewayUrl }))
    writeFileSync(join(dir, 'nginx.conf'), config)
    const child = spawn(NGINX, ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] })
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
        dir,
        config,
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
