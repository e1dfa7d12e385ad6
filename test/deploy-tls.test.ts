// The front door of deploy/: TLS on 443 with HTTP/2 and HSTS, port 80 redirecting but for the ACME challenge,
// IPv4 and IPv6, an IPv6 client counted by its /64; and the variant behind a load balancer that ends TLS, which
// believes forwarded headers only from the load balancer. nginx runs for real on loopback, with a certificate
// made for the test by openssl.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { type AddressInfo, type Socket, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { parse } from 'yaml'
import { DEFAULT_CLIENT_IPV6_PREFIX_BITS } from '../gateway/http/client-key.ts'
import { STRICT_TRANSPORT_SECURITY } from '../gateway/plugins/app/security-headers.ts'
import { checkFrontDoor } from '../scripts/containers-front-door.mjs'
import { BEHIND_LB_START, DEPLOY_DIR, NGINX, TLS_FILES, type TlsFiles, shippedNginxConf, startDeployNginx } from '../scripts/deploy-nginx.mjs'
import { ROOT } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'

/** A self-signed certificate for localhost, 127.0.0.1 and ::1, in a folder of the test's own. */
function throwawayCertificate(t: Test): TlsFiles & { pem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const files = { certificate: join(dir, 'certificate.pem'), key: join(dir, 'key.pem') }
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', '-keyout', files.key, '-out', files.certificate], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`)
  return { ...files, pem: readFileSync(files.certificate, 'utf8') }
}

t.test('nginx -t accepts each shipped front door as the containers read it: its includes beside it, the certificate as a file', async (t) => {
  const tls = throwawayCertificate(t)
  for (const main of ['nginx.conf', 'nginx-behind-lb.conf']) {
    const dir = mkdtempSync(join(tmpdir(), 'nginx-t-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    cpSync(DEPLOY_DIR, dir, { recursive: true, filter: (source) => !source.includes('secrets') })
    // Only the files the containers hold elsewhere move: the secrets, and the file the start script writes.
    const config = readFileSync(join(dir, main), 'utf8').replace(TLS_FILES.certificate, tls.certificate).replace(TLS_FILES.key, tls.key).replace('include /tmp/nginx-trusted-lb.conf;', `include ${join(dir, 'trusted-lb.conf')};`).replace(/^pid .*$/m, `pid ${dir}/nginx.pid;`)
    writeFileSync(join(dir, main), config)
    const started = spawnSync('sh', [BEHIND_LB_START, 'true'], { env: { PATH: process.env.PATH, TRUSTED_LB_ADDRESSES: '10.0.0.0/8, 2001:db8::/32', TRUSTED_LB_CONF: join(dir, 'trusted-lb.conf') }, encoding: 'utf8' })
    t.equal(started.status, 0, started.stderr)
    const checked = spawnSync(NGINX, ['-t', '-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, main)], { encoding: 'utf8' })
    t.equal(checked.status, 0, `${main}: ${checked.stderr}`)
    t.match(checked.stderr, 'test is successful', main)
    t.comment(`${main}: ${checked.stderr.trim().replaceAll('\n', ' | ')}`)
  }
})

/** The TLS handshake nginx makes with these options: its protocol, cipher and ALPN choice, or the error. */
function handshake(port: number, host: string, options: ConnectionOptions): Promise<{ protocol?: string | null; cipher?: string; alpn?: string | false | null; error?: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, servername: 'localhost', rejectUnauthorized: false, ...options })
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name, alpn: socket.alpnProtocol })
      socket.destroy()
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
  })
}

t.test('nginx.conf: a page over https on 127.0.0.1 and ::1 with HTTP/2 and HSTS; port 80 redirects but for the ACME challenge; TLS below 1.2 refused', async (t) => {
  const tls = throwawayCertificate(t)
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const nginx = await startDeployNginx({ variant: 'tls', gatewayUrl: system.url, tls })
  t.teardown(() => nginx.close())
  const agent = new Agent({ connect: { ca: tls.pem, servername: 'localhost' } })
  t.teardown(() => agent.close())

  for (const host of ['127.0.0.1', '[::1]']) {
    const page = await request(`https://${host}:${nginx.tlsPort}/over-ons`, { dispatcher: agent })
    t.equal(page.statusCode, 200, `a page over https on ${host}`)
    t.match(await page.body.text(), '<html', 'the gateway rendered it')
    t.equal(page.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY, 'HSTS, once, the gateway\'s value')

    const plain = await request(`http://${host}:${nginx.port}/over-ons?a=1`)
    await plain.body.dump()
    t.equal(plain.statusCode, 301, `http on ${host} redirects`)
    t.equal(plain.headers.location, `https://${host}/over-ons?a=1`, 'to the same address over https')
  }
  const plainHealth = await request(`http://[::1]:${nginx.port}/nginx-health`)
  t.equal(plainHealth.statusCode, 200, "port 80 answers the container's health check itself, not with a redirect")
  await plainHealth.body.dump()
  const health = await request(`https://127.0.0.1:${nginx.tlsPort}/nginx-health`, { dispatcher: agent })
  await health.body.dump()
  t.equal(health.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY, "nginx's own answers carry HSTS too")

  mkdirSync(join(nginx.dir, 'acme/.well-known/acme-challenge'), { recursive: true })
  writeFileSync(join(nginx.dir, 'acme/.well-known/acme-challenge/token-1'), 'token-1.key-authorization')
  const challenge = await request(`http://127.0.0.1:${nginx.port}/.well-known/acme-challenge/token-1`)
  t.equal(challenge.statusCode, 200, 'the ACME challenge is answered over http')
  t.equal(await challenge.body.text(), 'token-1.key-authorization')

  const modern = await handshake(nginx.tlsPort ?? 0, '::1', { ALPNProtocols: ['h2', 'http/1.1'] })
  t.equal(modern.protocol, 'TLSv1.3', 'TLS 1.3 by preference')
  t.equal(modern.alpn, 'h2', 'HTTP/2 offered (ALPN)')
  t.comment(`TLS 1.3 on ::1: ${modern.cipher}`)
  for (const version of ['TLSv1', 'TLSv1.1'] as const) {
    // The client's own floor lowered (SECLEVEL=0), so that the refusal is nginx's.
    const old = await handshake(nginx.tlsPort ?? 0, '127.0.0.1', { minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' })
    t.ok(old.error, `${version} refused (${old.error})`)
  }
  const offered: string[] = []
  for (const cipher of ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-ECDSA-AES128-SHA256', 'ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA']) {
    const tried = await handshake(nginx.tlsPort ?? 0, '127.0.0.1', { maxVersion: 'TLSv1.2', ciphers: cipher })
    if (tried.protocol === 'TLSv1.2') offered.push(cipher)
  }
  t.same(offered, ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305'], 'TLS 1.2: AEAD ciphers only, no CBC')
  t.comment(`TLS 1.2 ciphers accepted with an ECDSA certificate: ${offered.join(' ')}`)
})

/** A listener that takes connections and never answers; `taken` settles on the first. */
async function silentListener(t: Test): Promise<{ port: number; taken: Promise<void> }> {
  const sockets = new Set<Socket>()
  let took = (): void => undefined
  const taken = new Promise<void>((resolve) => (took = resolve))
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => undefined)
    took()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { port: (server.address() as AddressInfo).port, taken }
}

/** Adds a location that tells who nginx thinks the client is: its key for the limits, its address and the protocol it passes on. */
const withWhoAmI = (config: string): string =>
  config.replace(/^(\s*)location = \/nginx-health \{$/m, '$1location = /who { default_type text/plain; return 200 "$client_key $remote_addr $forwarded_proto"; }\n$&')

t.test('behind a load balancer: X-Forwarded-For and -Proto believed from its addresses only; an IPv6 client counted by its /64', async (t) => {
  const nginx = await startDeployNginx({ variant: 'behind-lb', trusted: '127.0.0.1, ::1', edit: withWhoAmI })
  t.teardown(() => nginx.close())
  // node:http, which binds the local address it is given (undici's Agent does not).
  const who = (forwardedFor: string, localAddress = '127.0.0.1', proto = 'https'): Promise<string> =>
    new Promise((resolve, reject) => {
      const host = localAddress.includes(':') ? '::1' : '127.0.0.1'
      const headers = { 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': proto }
      const asked = httpGet({ host, port: nginx.port, path: '/who', localAddress, headers, agent: false }, (answer) => {
        let text = ''
        answer.setEncoding('utf8')
        answer.on('data', (chunk: string) => (text += chunk))
        answer.on('end', () => resolve(text))
      })
      asked.on('error', reject)
    })
  t.equal(await who('203.0.113.7'), '203.0.113.7 203.0.113.7 https', 'from the load balancer: its client, and https')
  t.equal(await who('203.0.113.7', '127.0.0.1', 'http'), '203.0.113.7 203.0.113.7 http', 'http when it says http')
  t.equal(await who('198.51.100.1, 203.0.113.7'), '203.0.113.7 203.0.113.7 https', 'the address the load balancer saw, not one the client wrote before it')
  t.equal(await who('203.0.113.7', '::1'), '203.0.113.7 203.0.113.7 https', 'from its IPv6 address too')
  t.equal(await who('203.0.113.7', '127.0.0.2'), '127.0.0.2 127.0.0.2 http', 'from anyone else: neither header is believed')

  const sixtyFour: Array<[string, string]> = [
    ['2001:db8:1:2::5', '2001:db8:1:2'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2'],
    ['2001:DB8:1:2:0:0:0:9', '2001:db8:1:2'],
    ['2001:db8:1:3::5', '2001:db8:1:3'],
    ['2001:db8::5', '2001:db8:0:0'],
    ['2001:db8:0:0:1:0:0:0', '2001:db8:0:0'],
    ['2001:db8:0:0:1:2:3:4', '2001:db8:0:0'],
    ['2001:db8:7::', '2001:db8:7:0'],
    ['2001::1', '2001:0:0:0'],
    ['::1', '0:0:0:0'],
  ]
  for (const [address, key] of sixtyFour) t.equal((await who(address)).split(' ')[0], key, `${address}: its /64, ${key}`)
  t.equal(DEFAULT_CLIENT_IPV6_PREFIX_BITS, 64, "the gateways' client is a /64 too (nginx-http.conf's map keeps four groups: change both together)")
})

t.test('behind a load balancer: two requests from one IPv6 /64 share the per-client limit', async (t) => {
  const { port, taken } = await silentListener(t)
  // A file nginx serves itself (after the limits, unlike a `return`): another request's answer, the gateway hung.
  const withFile = (config: string): string => withWhoAmI(config).replace(/limit_conn per_client \d+;/, 'limit_conn per_client 1;').replace(/^(\s*)location = \/nginx-health \{$/m, '$1location = /file.txt { root html; }\n$&')
  const nginx = await startDeployNginx({ variant: 'behind-lb', trusted: '127.0.0.1', gatewayUrl: `http://127.0.0.1:${port}`, edit: withFile })
  t.teardown(() => nginx.close())
  mkdirSync(join(nginx.dir, 'html'))
  writeFileSync(join(nginx.dir, 'html/file.txt'), 'a file\n')
  const from = (address: string, path: string, signal?: AbortSignal) => request(`${nginx.url}${path}`, { headers: { 'x-forwarded-for': address }, signal })
  const hanging = new AbortController()
  const first = from('2001:db8:1:2::5', '/over-ons', hanging.signal).catch(() => undefined)
  await taken
  const status = async (address: string): Promise<number> => {
    const answer = await from(address, '/file.txt')
    await answer.body.dump()
    return answer.statusCode
  }
  t.equal(await status('2001:db8:1:2:ffff::9'), 429, 'another address in the same /64 is the same client: refused while its request is in progress')
  t.equal(await status('2001:db8:1:3::5'), 200, 'the next /64 is another client')
  t.equal(await status('203.0.113.7'), 200, 'and so is an IPv4 client')
  hanging.abort()
  await first
})

t.test('the start script behind a load balancer refuses to start without the load balancer\'s addresses, or with one that is not an address', async (t) => {
  for (const [value, message] of [
    ['', 'TRUSTED_LB_ADDRESSES is empty'],
    [' , ', 'TRUSTED_LB_ADDRESSES is empty'],
    ['10.0.0.0/8,10.0.0.1;include /etc/passwd', 'is not an address or CIDR'],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'lb-start-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const run = spawnSync('sh', [BEHIND_LB_START, 'true'], { env: { PATH: process.env.PATH, TRUSTED_LB_ADDRESSES: value, TRUSTED_LB_CONF: join(dir, 'trusted.conf') }, encoding: 'utf8' })
    t.equal(run.status, 2, `"${value}": exit code 2`)
    t.match(run.stderr, message)
  }
  t.match(shippedNginxConf('behind-lb'), /^\s*real_ip_recursive off;$/m, 'the last forwarded address, the one the load balancer saw')
})

interface LbService {
  ports?: Array<{ target?: number; published?: string } | string>
  configs?: Array<{ source: string; target: string }>
  secrets?: string[]
  volumes?: string[]
  command?: string[]
  environment?: Record<string, string>
}
interface StackFile {
  services: Record<string, LbService & { environment?: Record<string, string> }>
  secrets?: Record<string, { file?: string; name?: string }>
  configs?: Record<string, { file?: string; name?: string }>
}
const readYaml = (file: string): StackFile => parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true }) as StackFile

t.test('the stack and compose give nginx every file of its front door, the certificate as secrets, and ports 80 and 443', async (t) => {
  const includes = [...shippedNginxConf('tls').matchAll(/^\s*include (\S+);$/gm)].map((match) => match[1])
  t.same(includes, [], 'the shipped configuration has no include left that is not in deploy/')
  const named = (main: string): string[] => ['nginx.conf', ...[...readFileSync(join(DEPLOY_DIR, main), 'utf8').matchAll(/^\s*include (nginx-[a-z-]+\.conf);$/gm)].map((match) => match[1] ?? '')]
  const stack = readYaml('docker-stack.yml')
  const lb = stack.services.lb
  t.same(lb?.configs?.map((config) => config.target).sort(), named('nginx.conf').map((name) => `/etc/nginx/${name}`).sort(), 'the stack mounts the main file and its includes where nginx looks')
  for (const config of lb?.configs ?? []) t.equal(`/etc/nginx/${stack.configs?.[config.source]?.file?.replace('./deploy/', '')}`, config.target, `${config.source} is that file`)
  t.same(lb?.secrets, ['tls_certificate', 'tls_key'])
  t.same([`/run/secrets/${lb?.secrets?.[0]}`, `/run/secrets/${lb?.secrets?.[1]}`], [TLS_FILES.certificate, TLS_FILES.key], 'where nginx.conf reads them')
  t.match(lb?.ports, [{ target: 80 }, { target: 443 }], 'both ports published')
  t.ok(lb?.volumes?.includes('acme_challenge:/var/www/acme:ro'), "the ACME challenge's files")

  const compose = readYaml('docker-compose.yml')
  const mounts = compose.services.lb?.volumes ?? []
  for (const name of named('nginx.conf')) t.ok(mounts.includes(`./deploy/${name}:/etc/nginx/${name}:ro`), `compose mounts ${name}`)
  t.same(compose.services.lb?.secrets, ['tls_certificate', 'tls_key'], 'compose: the certificate as secret files')
  t.same(compose.services.lb?.ports, ['${LB_PORT:-80}:80', '${LB_TLS_PORT:-443}:443'])

  for (const [file, parsed] of [['docker-stack.yml', stack], ['docker-compose.yml', compose]] as const) {
    t.equal(parsed.services.gateway?.environment?.DEMO_SITE, '${DEMO_SITE:-false}', `${file}: a demo only when asked for`)
  }

  const behind = readYaml('docker-stack.behind-lb.yml')
  t.equal(behind.configs?.nginx_conf?.file, './deploy/nginx-behind-lb.conf', 'behind a load balancer: its own main file')
  t.same(behind.services.lb?.command, ['sh', '/etc/nginx/nginx-behind-lb-start.sh'], 'started by the script that writes the trusted addresses')
  t.match(behind.services.lb?.environment?.TRUSTED_LB_ADDRESSES, /^\$\{TRUSTED_LB_ADDRESSES:\?/, 'which the deploy refuses to go without')
  t.same(behind.services.lb?.configs?.map((config) => config.target).sort(), [...named('nginx-behind-lb.conf').map((name) => `/etc/nginx/${name}`), '/etc/nginx/nginx-behind-lb-start.sh'].sort())
})

t.test("the container test's front-door check (scripts/containers-front-door.mjs) finds the shipped nginx.conf as shipped", async (t) => {
  const tls = throwawayCertificate(t)
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const nginx = await startDeployNginx({ variant: 'tls', gatewayUrl: system.url, tls })
  t.teardown(() => nginx.close())
  const found = await checkFrontDoor({ httpPort: nginx.port, tlsPort: nginx.tlsPort ?? 0 })
  t.same(found.problems, [], 'nothing to report')
  t.comment(`front door: ${JSON.stringify({ ...found, problems: undefined })}`)
})
