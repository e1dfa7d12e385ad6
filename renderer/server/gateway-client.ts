import { Agent, request } from 'undici'
import { CACHE_STATUS_HEADER, CRAFT_TOKEN_HEADER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import type { PagePayload, PayloadPart } from '../../shared/payload.ts'
import { PAYLOAD_PART_PARAM, payloadPathOf } from '../../shared/payload.ts'
import { MAX_RENDER_TAGS_LENGTH, RENDER_FETCH_HEADER, RENDER_TAGS_HEADER, splitRenderTags } from '../../shared/render-protocol/index.ts'
import { GatewayUnavailableError } from '../errors.ts'

export interface PayloadCall {
  /** Page path as requested, e.g. `/over-ons`. */
  path: string
  /** Query string of the page request, with its `?`, or ''. */
  search: string
  part: PayloadPart
  requestId: string
  token: string | undefined
}

export interface FetchedPayload {
  payload: PagePayload
  cacheStatus: string | undefined
  /** The cache tags of the data, as the gateway says them to a render's fetch (RENDER_TAGS_HEADER); undefined when it says none. */
  tags: string[] | undefined
}

/**
 * An address on the gateway: its origin with this path and query set on a
 * copy, never a path resolved against it (`//other.host/x` would leave it).
 */
function gatewayAddress(gatewayUrl: URL, pathname: string, search = ''): URL {
  const url = new URL(gatewayUrl.origin)
  url.pathname = pathname
  url.search = search
  return url
}

/** The renderer's one connection to the world: the deferred data of its renders from the gateway, kept alive. */
export class GatewayClient {
  private readonly agent: Agent

  constructor(
    private readonly gatewayUrl: URL,
    timeoutMs: number,
  ) {
    // Room for the data's tags (RENDER_TAGS_HEADER) beside the other headers.
    this.agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000, connections: 64, maxHeaderSize: 16 * 1024 + MAX_RENDER_TAGS_LENGTH })
  }

  async payload(call: PayloadCall): Promise<FetchedPayload> {
    const params = new URLSearchParams(call.search)
    params.set(PAYLOAD_PART_PARAM, call.part)
    const url = gatewayAddress(this.gatewayUrl, payloadPathOf(call.path), params.toString())
    const headers: Record<string, string> = { accept: 'application/json', [REQUEST_ID_HEADER]: call.requestId, [RENDER_FETCH_HEADER]: '1' }
    if (call.token) headers[CRAFT_TOKEN_HEADER] = call.token
    let response
    try {
      response = await request(url, { method: 'GET', headers, dispatcher: this.agent })
    } catch (error) {
      throw new GatewayUnavailableError(`gateway unreachable: ${(error as Error).message}`)
    }
    const text = await response.body.text()
    let payload: PagePayload
    try {
      payload = JSON.parse(text) as PagePayload
    } catch {
      throw new GatewayUnavailableError(`gateway answered ${response.statusCode} without a payload`)
    }
    if (typeof payload !== 'object' || payload === null || typeof payload.status !== 'number') {
      throw new GatewayUnavailableError(`gateway answered ${response.statusCode} without a payload`)
    }
    const cacheStatus = response.headers[CACHE_STATUS_HEADER]
    return { payload, cacheStatus: typeof cacheStatus === 'string' ? cacheStatus : undefined, tags: splitRenderTags(response.headers[RENDER_TAGS_HEADER]) }
  }

  async healthy(): Promise<boolean> {
    try {
      const response = await request(gatewayAddress(this.gatewayUrl, '/healthz'), { dispatcher: this.agent, headersTimeout: 2000, bodyTimeout: 2000 })
      await response.body.dump()
      return response.statusCode === 200
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}
