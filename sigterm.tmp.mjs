import { spawn } from 'node:child_process'
import { request } from 'undici'
const port = 4200, rport = 4201
const child = spawn(process.execPath, ['scripts/start.mjs'], { env: { ...process.env, PORT: String(port), RENDERER_PORT: String(rport), PAGE_CACHE: 'false', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
let out = ''; child.stdout.on('data', (c) => out += c); child.stderr.on('data', (c) => out += c)
for (let i = 0; i < 100; i++) { try { const r = await request(`http://127.0.0.1:${port}/builds/latest.json`); await r.body.dump(); const s = await request(`http://127.0.0.1:${rport}/healthz`); await s.body.dump(); break } catch { await new Promise(r => setTimeout(r, 100)) } }
await (await request(`http://127.0.0.1:${port}/`)).body.dump()
const answers = Array.from({ length: 30 }, async () => {
  try {
    const page = await request(`http://127.0.0.1:${port}/`, { headers: { 'accept-encoding': 'identity' } })
    const text = await page.body.text()
    return `${page.statusCode} ${text.length} ${text.slice(0, 80).replace(/\n/g, ' ')}`
  } catch (error) { return `failed ${error.code}` }
})
await Promise.race(answers)
child.kill('SIGTERM')
const code = await new Promise((r) => child.on('exit', r))
console.log('exit', code)
const res = await Promise.all(answers)
const counts = {}; for (const a of res) counts[a] = (counts[a] ?? 0) + 1; console.log(counts)
console.log(out.split('\n').filter(l => /warn|error|"level":[45]/.test(l)).slice(0, 10).join('\n'))
