import { Agent, errors as undiciErrors, request } from 'undici'
import { CRAFT_TOKEN_HEADER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import {
  UpstreamBadResponseError,
  UpstreamStatusError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../errors.ts'

export interface GraphQLResponse {
  data?: Record<string, unknown> | null
  errors?: { message: string; [key: string]: unknown }[]
  [key: string]: unknown
}

export interface UpstreamRequest {
  query: string
  variables?: Record<string, unknown> | undefined
  operationName?: string | undefined
  /** Preview token or the site's default token; sent as X-Craft-Token. */
  token?: string | undefined
  requestId?: string | undefined
}

export interface UpstreamAnswer {
  status: number
  body: GraphQLResponse
  /** The body as received, for callers that pass it on unchanged. */
  raw: Buffer
}

export interface CraftClientOptions {
  /** Resolved per call: the embedded API's address is known only after listen. */
  url: () => URL
  schemaToken: string | undefined
  connectTimeoutMs: number
  headersTimeoutMs: number
  bodyTimeoutMs: number
  connections: number
  /** Told how long each upstream call took and how it ended. */
  onTiming?: (seconds: number, outcome: 'ok' | 'error') => void
  /** A slot for the call among those in flight to the CMS (CMS_CONCURRENCY); rejects when none came in time, and no call is made. */
  admit?: () => Promise<() => void>
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * Talks Craft's GraphQL wire format over a keep-alive pool. The same client
 * serves a real Craft and the embedded API, so both take the same path.
 */
export class CraftClient {
  private readonly agent: Agent
  private readonly options: CraftClientOptions

  constructor(options: CraftClientOptions) {
    this.options = options
    this.agent = new Agent({
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      connections: options.connections,
      keepAliveTimeout: 10_000,
    })
  }

  async query(call: UpstreamRequest): Promise<UpstreamAnswer> {
    if (!this.options.admit) return this.send(call)
    const release = await this.options.admit()
    try {
      return await this.send(call)
    } finally {
      release()
    }
  }

  private async send(call: UpstreamRequest): Promise<UpstreamAnswer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    if (call.token) headers[CRAFT_TOKEN_HEADER] = call.token
    if (this.options.schemaToken) headers.authorization = `Bearer ${this.options.schemaToken}`
    if (call.requestId) headers[REQUEST_ID_HEADER] = call.requestId
    const body = JSON.stringify({ query: call.query, variables: call.variables ?? {}, operationName: call.operationName })

    let status: number
    let raw: Buffer
    const started = performance.now()
    try {
      const response = await request(this.options.url(), {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.options.headersTimeoutMs,
        bodyTimeout: this.options.bodyTimeoutMs,
      })
      status = response.statusCode
      raw = Buffer.from(await response.body.arrayBuffer())
      this.options.onTiming?.((performance.now() - started) / 1000, status < 400 ? 'ok' : 'error')
    } catch (error) {
      this.options.onTiming?.((performance.now() - started) / 1000, 'error')
      throw translate(error)
    }

    let parsed: unknown
    try {
      parsed = JSON.parse(raw.toString('utf8'))
    } catch {
      throw unusable(status)
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('data' in parsed || 'errors' in parsed)) {
      throw unusable(status)
    }
    return { status, body: parsed as GraphQLResponse, raw }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}

/** The error for an answer that is not GraphQL; an error status is kept for callers that tell a refused token from an outage. */
function unusable(status: number): Error {
  if (status >= 200 && status < 300) return new UpstreamBadResponseError()
  return Object.assign(new UpstreamStatusError(status), { upstreamStatus: status })
}

function translate(error: unknown): Error {
  const code = (error as { code?: string }).code
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new UpstreamTimeoutError()
  if (error instanceof undiciErrors.UndiciError || code !== undefined) return new UpstreamUnavailableError()
  return error instanceof Error ? error : new UpstreamUnavailableError()
}
