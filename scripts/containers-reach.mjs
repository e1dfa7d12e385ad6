// Step 5 of scripts/test-containers.mjs: from a throwaway container on each of the stack's networks, which of
// lb:80, gateway:3000, gateway:3100, renderer:3001 and redis:6379 answer, against what docs/operations.md says.
const TARGETS = [
  { name: 'lb', port: 80, path: '/nginx-health' },
  { name: 'gateway', port: 3000, path: '/healthz' },
  { name: 'gateway', port: 3100, path: '/readyz' },
  { name: 'renderer', port: 3001, path: '/healthz' },
  { name: 'redis', port: 6379 },
]
const EXPECTED_REACH = {
  edge: ['lb:80', 'gateway:3000'],
  internal: ['gateway:3000', 'renderer:3001', 'redis:6379'],
  scrape: ['gateway:3100'],
}

// Runs inside the throwaway container: every address of each name, a TCP connect and (for HTTP) a GET.
const PROBE = `
const dns = require('node:dns/promises'), net = require('node:net')
const targets = ${JSON.stringify(TARGETS)}
const connect = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port, timeout: 2000 })
  socket.once('connect', () => { socket.destroy(); resolve('open') })
  socket.once('timeout', () => { socket.destroy(); resolve('timeout') })
  socket.once('error', (error) => resolve(error.code))
})
;(async () => {
  const out = {}
  for (const { name, port, path } of targets) {
    const addresses = await dns.lookup(name, { all: true, family: 4 }).catch(() => [])
    if (addresses.length === 0) { out[name + ':' + port] = 'no such name'; continue }
    const results = []
    for (const { address } of addresses) {
      let result = await connect(address, port)
      if (result === 'open' && path) result = await fetch('http://' + address + ':' + port + path, { signal: AbortSignal.timeout(3000) }).then((r) => 'HTTP ' + r.status, (e) => e.cause?.code ?? e.name)
      results.push(result)
    }
    out[name + ':' + port] = [...new Set(results)].join('/') + ' (' + addresses.length + ' addr)'
  }
  console.log(JSON.stringify(out))
})()`

export function reachability(docker, stack, tag) {
  const table = {}
  for (const network of Object.keys(EXPECTED_REACH)) {
    const output = docker(['run', '--rm', '--network', `${stack}_${network}`, '--entrypoint', 'node', `havenborg-website:${tag}`, '-e', PROBE])
    table[network] = JSON.parse(output.split('\n').at(-1) ?? '{}')
  }
  return table
}

export function checkReach(table) {
  const wrong = []
  for (const [network, row] of Object.entries(table)) {
    for (const [target, result] of Object.entries(row)) {
      const answers = /^HTTP |^open/.test(result)
      const expected = EXPECTED_REACH[network]?.includes(target) ?? false
      if (answers !== expected) wrong.push(`${network} → ${target}: ${result}`)
    }
  }
  return wrong
}

export function printTable(table) {
  const columns = TARGETS.map(({ name, port }) => `${name}:${port}`)
  console.log(['network', ...columns].join(' | '))
  for (const [network, row] of Object.entries(table)) console.log([network, ...columns.map((column) => row[column] ?? '')].join(' | '))
}
