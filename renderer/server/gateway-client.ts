import { Agent, request } from 'undici'
import { CACHE_STATUS_HEADER, CRAFT_TOKEN_HEADER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import type { PagePayload, PayloadPart } from '../../shared/payload.ts'
import { PAYLOAD_PART_PARAM, payloadPathOf } from '../../shared/payload.ts'
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

/** The renderer's one connection to the world: payloads from the gateway, kept alive. */
export class GatewayClient {
  private readonly agent: Agent

  constructor(
    private readonly gatewayUrl: URL,
    timeoutMs: number,
  ) {
    this.agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000, connections: 64 })
  }

  async payload(call: PayloadCall): Promise<FetchedPayload> {
    const params = new URLSearchParams(call.search)
    params.set(PAYLOAD_PART_PARAM, call.part)
    const url = gatewayAddress(this.gatewayUrl, payloadPathOf(call.path), params.toString())
    const headers: Record<string, string> = { accept: 'application/json', [REQUEST_ID_HEADER]: call.requestId }
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
    return { payload, cacheStatus: typeof cacheStatus === 'string' ? cacheStatus : undefined }
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
