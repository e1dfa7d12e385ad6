// The front door as deployed, asked from the host (scripts/test-containers.mjs): a page over https on IPv4 and
// IPv6, HSTS, HTTP/2, the redirect from http but for the ACME challenge, TLS below 1.2 refused, and which TLS 1.2
// ciphers nginx accepts. The certificate is the test's throwaway one: its chain is not checked here
// (test/deploy-tls.test.ts checks it against nginx with its CA).
import { connect } from 'node:tls'
import { Agent, request } from 'undici'

/** The handshake nginx makes with these options: protocol, cipher and ALPN, or the error's code. */
function handshake(port, host, options) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, servername: 'localhost', rejectUnauthorized: false, ...options })
    socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')))
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name, alpn: socket.alpnProtocol })
      socket.destroy()
    })
    socket.once('error', (error) => resolve({ error: error.code ?? error.message }))
  })
}

const TLS12_CIPHERS = ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305', 'ECDHE-ECDSA-AES128-SHA', 'ECDHE-RSA-AES128-SHA', 'AES128-GCM-SHA256', 'AES128-SHA']

/** What the front door on `httpPort` and `tlsPort` of the loopback addresses does; `problems` lists what is not as shipped. */
export async function checkFrontDoor({ httpPort, tlsPort, path = '/over-ons' }) {
  const agent = new Agent({ connect: { rejectUnauthorized: false, servername: 'localhost' } })
  const problems = []
  const result = { pages: {}, redirects: {} }
  try {
    for (const host of ['127.0.0.1', '[::1]']) {
      const page = await request(`https://${host}:${tlsPort}${path}`, { dispatcher: agent }).catch((error) => ({ statusCode: error.code ?? 'error', headers: {}, body: undefined }))
      await page.body?.dump()
      result.pages[host] = { status: page.statusCode, hsts: page.headers['strict-transport-security'] }
      if (page.statusCode !== 200) problems.push(`https on ${host}: ${page.statusCode}`)
      if (!page.headers['strict-transport-security']) problems.push(`https on ${host}: no Strict-Transport-Security`)
      const plain = await request(`http://${host}:${httpPort}${path}`).catch((error) => ({ statusCode: error.code ?? 'error', headers: {}, body: undefined }))
      await plain.body?.dump()
      result.redirects[host] = { status: plain.statusCode, location: plain.headers.location }
      if (plain.statusCode !== 301 || plain.headers.location !== `https://${host}${path}`) problems.push(`http on ${host}: ${plain.statusCode} ${plain.headers.location ?? ''}`)
    }
    const acme = await request(`http://127.0.0.1:${httpPort}/.well-known/acme-challenge/no-such-token`)
    await acme.body.dump()
    result.acme = acme.statusCode
    if (acme.statusCode === 301) problems.push('the ACME challenge path is redirected')
    const modern = await handshake(tlsPort, '127.0.0.1', { ALPNProtocols: ['h2', 'http/1.1'] })
    result.tls13 = modern
    if (modern.protocol !== 'TLSv1.3' || modern.alpn !== 'h2') problems.push(`TLS 1.3 with h2: ${JSON.stringify(modern)}`)
    for (const version of ['TLSv1', 'TLSv1.1']) {
      const old = await handshake(tlsPort, '127.0.0.1', { minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' })
      result[version] = old.error ? `refused (${old.error})` : `ACCEPTED (${old.cipher})`
      if (!old.error) problems.push(`${version} accepted`)
    }
    result.tls12Ciphers = []
    for (const cipher of TLS12_CIPHERS) {
      const tried = await handshake(tlsPort, '127.0.0.1', { maxVersion: 'TLSv1.2', ciphers: cipher })
      if (tried.protocol === 'TLSv1.2') result.tls12Ciphers.push(cipher)
    }
    if (result.tls12Ciphers.some((cipher) => !cipher.includes('GCM') && !cipher.includes('CHACHA20'))) problems.push(`a CBC cipher accepted: ${result.tls12Ciphers.join(' ')}`)
  } finally {
    await agent.close()
  }
  return { ...result, problems }
}
