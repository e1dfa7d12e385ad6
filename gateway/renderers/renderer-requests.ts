import { type Dispatcher, request } from 'undici'
import { CSP_NONCE_HEADER, RENDERER_BUILD_HEADER, RENDERER_PROBE_TIMEOUT_MS } from '../../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, speaksThisVersion } from '../../shared/render-protocol/index.ts'
import type { RendererAnswer } from './render-exchange.ts'

// The requests the renderer pool makes besides renders (health checks, client-bundle files), and how it reads a renderer's answers.

/**
 * A health check that had no answer in its time: the renderer (or its host) hangs, and so do the renders sent to it.
 * A check that is refused, reset or answered with an error says otherwise: the renderer is closing (a draining one
 * answers 503 on its kept-alive connections and refuses new ones) or gone (its sockets reset, which ends its renders
 * by itself), and a closing renderer finishes the renders it already has.
 */
const PROBE_UNANSWERED = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/**
 * A health check's outcome: passed; failed with an answer or a refusal (closing, gone); never answered (hung); or
 * answered by something that is not a renderer (a proxy on the default route of a gateway cut from the renderers'
 * network): the renderer is out of reach, and the renders on its connections are as lost as a hung one's.
 */
export type CheckResult = 'passed' | 'failed' | 'unanswered' | 'stranger'

/** A health check's result, and what a passed one said of the renderer. */
export interface CheckOutcome {
  result: CheckResult
  build?: string | undefined
  sameProtocol?: boolean
}

/** A file of a renderer's build (its client bundle), as the gateway passes it on. */
export interface BuildAsset {
  body: Buffer
  contentType: string
}

/** The largest client-bundle file taken from a renderer: the bundle's files are tens of KB. */
const MAX_ASSET_BYTES = 4 * 1024 * 1024

/** Fastify's answer while it closes (return503OnClosing) is JSON; a rendered 503 page is HTML and goes to the visitor. */
export function isClosingAnswer(statusCode: number, headers: RendererAnswer['headers']): boolean {
  const type = headers['content-type']
  return statusCode === 503 && !(typeof type === 'string' && type.startsWith('text/html'))
}

/**
 * Whether an answer came from a renderer: it says its build (RENDERER_BUILD_HEADER). A renderer of a build from
 * before that header says so by the CSP nonce of its page, so a roll from such a build keeps its renderers.
 */
export function fromRenderer(headers: RendererAnswer['headers']): boolean {
  return headers[RENDERER_BUILD_HEADER] !== undefined || headers[CSP_NONCE_HEADER] !== undefined
}

/** Whether an answer from a renderer is of another protocol version: it names another, or none (a release before the version). */
export function ofAnotherProtocol(headers: RendererAnswer['headers']): boolean {
  return fromRenderer(headers) && !speaksThisVersion(headers[RENDER_PROTOCOL_HEADER])
}

/** A renderer's health check: `/healthz` within RENDERER_PROBE_TIMEOUT_MS. */
export async function checkHealth(agent: Dispatcher, base: URL, host: string): Promise<CheckOutcome> {
  try {
    const response = await request(new URL('/healthz', base), {
      dispatcher: agent,
      headers: { host },
      headersTimeout: RENDERER_PROBE_TIMEOUT_MS,
      bodyTimeout: RENDERER_PROBE_TIMEOUT_MS,
    })
    // A renderer marks its answers; one closing answers before its hooks run (Fastify's 503), and one of a build
    // from before the mark says `"status":"ok"`.
    const marked = response.headers[RENDERER_BUILD_HEADER] !== undefined
    if (response.statusCode !== 200) {
      await response.body.dump()
      return { result: marked || isClosingAnswer(response.statusCode, response.headers) ? 'failed' : 'stranger' }
    }
    // `{"status":"ok","build":"…"}`: which build it runs (builds in service, /readyz). Anything else did not come from a renderer.
    const said = (await response.body.json().catch(() => undefined)) as { status?: unknown; build?: unknown; protocol?: unknown } | undefined
    if (said?.status !== 'ok') return { result: marked ? 'failed' : 'stranger' }
    const build = typeof said.build === 'string' && said.build.length <= 100 ? said.build : undefined
    return { result: 'passed', build, sameProtocol: speaksThisVersion(said.protocol) }
  } catch (error) {
    return { result: PROBE_UNANSWERED.has((error as { code?: string }).code ?? '') ? 'unanswered' : 'failed' }
  }
}

/** A client-bundle file from the first of `members` that has it (renderer-pool.ts `fetchAsset`). */
export async function fetchBuildAsset(agent: Dispatcher, members: readonly { base: URL; host: string }[], path: string): Promise<BuildAsset | undefined> {
  for (const member of members) {
    try {
      const response = await request(new URL(path, member.base), {
        dispatcher: agent,
        headers: { host: member.host, 'accept-encoding': 'identity' },
        headersTimeout: RENDERER_PROBE_TIMEOUT_MS,
        bodyTimeout: RENDERER_PROBE_TIMEOUT_MS,
      })
      const length = Number(response.headers['content-length'] ?? Number.NaN)
      if (response.statusCode !== 200 || !(length <= MAX_ASSET_BYTES)) {
        await response.body.dump()
        continue
      }
      const type = response.headers['content-type']
      return { body: Buffer.from(await response.body.arrayBuffer()), contentType: typeof type === 'string' ? type : 'application/octet-stream' }
    } catch {
      // this one did not answer: the next
    }
  }
  return undefined
}
