import t from 'tap'
import { loadRendererConfig } from '../../renderer/config.ts'
import { RENDER_SIGNATURE_CLOCK_SKEW_MS, SignatureCheck, UsedSignatures } from '../../renderer/server/render-signatures.ts'
import { CRAFT_TOKEN_HEADER, RENDER_SIGNATURE_HEADER } from '../../shared/constants.ts'
import { EMPTY_CONTENT_DIGEST, RENDER_NONCE_HEADER, RENDER_SIGNED_AT_HEADER, RenderSigner, contentDigest } from '../../shared/render-protocol/index.ts'

const SECRET = 'a-render-secret-for-tests'
const MAX_AGE_MS = 10_000
const NOW = 1_800_000_000_000

/** A request as the renderer sees it, signed at `signedAt` with these headers. */
function signedAt(signedAtMs: number, headers: Record<string, string> = {}, method = 'GET', path = '/over-ons') {
  const signer = new RenderSigner(SECRET, () => signedAtMs)
  return { method, url: path, headers: { ...headers, ...signer.signing(method, path, headers) } }
}

function checkAt(clock: { now: number }, options: { replayCheck?: boolean; usedMax?: number } = {}): SignatureCheck {
  return new SignatureCheck(new RenderSigner(SECRET), { maxAgeMs: MAX_AGE_MS, replayCheck: options.replayCheck ?? true, now: () => clock.now, ...(options.usedMax ? { usedMax: options.usedMax } : {}) })
}

t.test('the signature covers the headers the renderer reads, an absent one as absent; others are not signed', async (t) => {
  const signer = new RenderSigner(SECRET)
  const parts = { method: 'GET', path: '/', digest: EMPTY_CONTENT_DIGEST }
  const base = { [RENDER_SIGNED_AT_HEADER]: '1', [RENDER_NONCE_HEADER]: 'n', 'user-agent': 'Mozilla/5.0' }
  const signature = signer.sign({ ...parts, headers: base })
  t.not(signer.sign({ ...parts, headers: { ...base, [CRAFT_TOKEN_HEADER]: '' } }), signature, 'an empty token is not an absent one')
  t.not(signer.sign({ ...parts, headers: { ...base, 'content-type': 'application/x-ndjson' } }), signature, 'a body type added')
  t.not(signer.sign({ ...parts, headers: { ...base, 'user-agent': 'Googlebot' } }), signature, 'another user agent')
  t.not(signer.sign({ ...parts, headers: { ...base, [RENDER_NONCE_HEADER]: 'm' } }), signature, 'another nonce')
  t.not(signer.sign({ ...parts, digest: contentDigest('x'), headers: base }), signature, 'another body')
  t.equal(signer.sign({ ...parts, headers: { 'user-agent': 'Mozilla/5.0', [RENDER_NONCE_HEADER]: 'n', [RENDER_SIGNED_AT_HEADER]: '1' } }), signature, 'in whatever order the headers are held')
  t.equal(signer.sign({ ...parts, headers: { ...base, 'user-agent': ' Mozilla/5.0 \t' } }), signature, 'blanks HTTP drops at the ends of a value do not count')
  t.equal(signer.sign({ ...parts, headers: { ...base, accept: 'text/html', 'x-request-id': 'r1', host: 'renderer:3001' } }), signature, 'headers the renderer does not read are not signed')
})

t.test('every request the gateway signs has a time, a nonce of its own and its signature', async (t) => {
  const signer = new RenderSigner(SECRET, () => NOW)
  const nonces = new Set<string>()
  for (let i = 0; i < 1000; i++) {
    const headers = signer.signing('GET', '/', {})
    t.equal(headers[RENDER_SIGNED_AT_HEADER], String(NOW))
    nonces.add(headers[RENDER_NONCE_HEADER] ?? '')
  }
  t.equal(nonces.size, 1000, 'two requests signed in the same millisecond still differ')
  const other = new RenderSigner(SECRET, () => NOW).signing('GET', '/', {})
  t.notOk(nonces.has(other[RENDER_NONCE_HEADER] ?? ''), "another gateway's nonces are its own")
})

t.test(`admitted while signed at most RENDER_SIGNATURE_MAX_AGE_MS ago and at most ${RENDER_SIGNATURE_CLOCK_SKEW_MS} ms ahead`, async (t) => {
  const clock = { now: NOW }
  const check = checkAt(clock)
  t.equal(check.refusal(signedAt(NOW - MAX_AGE_MS), EMPTY_CONTENT_DIGEST), undefined, 'as old as allowed')
  t.equal(check.refusal(signedAt(NOW - MAX_AGE_MS - 1), EMPTY_CONTENT_DIGEST), 'expired', 'a millisecond older')
  t.equal(check.refusal(signedAt(NOW + RENDER_SIGNATURE_CLOCK_SKEW_MS), EMPTY_CONTENT_DIGEST), undefined, 'as far ahead as allowed')
  t.equal(check.refusal(signedAt(NOW + RENDER_SIGNATURE_CLOCK_SKEW_MS + 1), EMPTY_CONTENT_DIGEST), 'signed ahead', 'a millisecond further')
  const captured = signedAt(NOW)
  t.equal(check.refusal(captured, EMPTY_CONTENT_DIGEST), undefined)
  t.equal(check.refusal(captured, EMPTY_CONTENT_DIGEST), 'replayed', 'the same request again, inside the window')
  clock.now += MAX_AGE_MS + 1
  t.equal(check.refusal(captured, EMPTY_CONTENT_DIGEST), 'expired', 'and after it')
  t.equal(check.refusal({ ...captured, headers: { ...captured.headers, [RENDER_SIGNED_AT_HEADER]: '1e15' } }, EMPTY_CONTENT_DIGEST), 'unsigned', 'a time that is not digits')
  t.equal(check.refusal(signedAt(clock.now), contentDigest('a body it was not signed for')), 'bad signature')
})

t.test('a forged request never enters the memory of used signatures', async (t) => {
  const clock = { now: NOW }
  const check = checkAt(clock)
  for (let i = 0; i < 100; i++) {
    const request = signedAt(NOW)
    check.refusal({ ...request, headers: { ...request.headers, [RENDER_SIGNATURE_HEADER]: `forged-${i}` } }, EMPTY_CONTENT_DIGEST)
  }
  t.equal(check.remembered, 0)
})

t.test('RENDER_REPLAY_CHECK=false admits a signed request whatever its age and however often, and still only a signed one', async (t) => {
  const check = checkAt({ now: NOW }, { replayCheck: false })
  const old = signedAt(NOW - 3_600_000)
  t.equal(check.refusal(old, EMPTY_CONTENT_DIGEST), undefined)
  t.equal(check.refusal(old, EMPTY_CONTENT_DIGEST), undefined)
  t.equal(check.refusal({ ...old, headers: { ...old.headers, 'user-agent': 'Googlebot' } }, EMPTY_CONTENT_DIGEST), 'bad signature')
  t.equal(check.remembered, 0, 'nothing remembered')
})

t.test('used signatures are bounded: expired ones go, and when full the oldest go and nothing signed before them is admitted', async (t) => {
  const clock = { now: NOW }
  const check = checkAt(clock, { usedMax: 100 })
  const requests = Array.from({ length: 250 }, (_, i) => signedAt(NOW + Math.floor(i / 10)))
  for (const request of requests) t.equal(check.refusal(request, EMPTY_CONTENT_DIGEST), undefined)
  t.ok(check.remembered <= 100, `${check.remembered} remembered, within the bound`)
  let replayed = 0
  for (const request of requests) if (check.refusal(request, EMPTY_CONTENT_DIGEST) === undefined) replayed++
  t.equal(replayed, 0, 'not one of them renders twice, forgotten or not')
  t.equal(check.refusal(signedAt(NOW + 10), EMPTY_CONTENT_DIGEST), 'replayed', 'one signed no later than a forgotten one is refused')
  t.equal(check.refusal(signedAt(NOW + 30), EMPTY_CONTENT_DIGEST), undefined, 'one signed later is admitted')

  clock.now += MAX_AGE_MS + 100
  t.equal(check.refusal(signedAt(clock.now), EMPTY_CONTENT_DIGEST), undefined)
  t.equal(check.remembered, 1, 'the expired ones made way')

  const used = new UsedSignatures(3)
  for (const [index, signature] of ['a', 'b', 'c', 'd'].entries()) t.ok(used.use(signature, NOW + index, NOW - MAX_AGE_MS))
  t.equal(used.size, 3)
  t.notOk(used.use('a', NOW, NOW - MAX_AGE_MS), 'the forgotten one is refused all the same')
})

t.test('RENDER_SIGNATURE_MAX_AGE_MS and RENDER_REPLAY_CHECK', async (t) => {
  t.equal(loadRendererConfig({}).renderSignatureMaxAgeMs, 10_000)
  t.equal(loadRendererConfig({}).renderReplayCheck, true)
  t.equal(loadRendererConfig({ RENDER_SIGNATURE_MAX_AGE_MS: '3000' }).renderSignatureMaxAgeMs, 3000)
  t.equal(loadRendererConfig({ RENDER_REPLAY_CHECK: 'false' }).renderReplayCheck, false)
  t.throws(() => loadRendererConfig({ RENDER_SIGNATURE_MAX_AGE_MS: '10' }), /RENDER_SIGNATURE_MAX_AGE_MS/)
  t.throws(() => loadRendererConfig({ RENDER_SIGNATURE_MAX_AGE_MS: '3600000' }), /RENDER_SIGNATURE_MAX_AGE_MS/)
})
