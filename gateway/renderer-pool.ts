import type { Readable } from 'node:stream'
import { Agent, request } from 'undici'

export interface RenderResponse {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: Readable
}

/**
 * The renderer's address for a page: its origin and the page's path, never a
 * URL resolved from the path (`//other.host/x` would leave the renderer).
 */
export function rendererUrl(base: URL, pathWithQuery: string): string {
  if (!pathWithQuery.startsWith('/') || pathWithQuery.startsWith('//')) throw new Error('a page path starts with one slash')
  return `${base.origin}${pathWithQuery}`
}

const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'])

/**
 * Page renders spread over the renderers round robin on kept-alive
 * connections; a renderer that cannot be reached is skipped and the render
 * tried on the next one.
 */
export class RendererPool {
  private next = 0
  private readonly agent: Agent

  constructor(
    private readonly urls: readonly URL[],
    private readonly headersTimeoutMs: number,
  ) {
    this.agent = new Agent({ connect: { timeout: 2000 }, headersTimeout: headersTimeoutMs, bodyTimeout: headersTimeoutMs, keepAliveTimeout: 10_000 })
  }

  async render(pathWithQuery: string, headers: Record<string, string>): Promise<RenderResponse> {
    let lastError: unknown
    for (let attempt = 0; attempt < this.urls.length; attempt++) {
      const base = this.urls[this.next++ % this.urls.length] as URL
      try {
        const response = await request(rendererUrl(base, pathWithQuery), {
          method: 'GET',
          headers,
          dispatcher: this.agent,
        })
        return { statusCode: response.statusCode, headers: response.headers, body: response.body }
      } catch (error) {
        lastError = error
        if (!CONNECT_FAILURES.has((error as { code?: string }).code ?? '')) break
      }
    }
    throw lastError
  }

  /** Whether at least one renderer answers its health check. */
  async healthy(): Promise<boolean> {
    const checks = await Promise.all(
      this.urls.map(async (base) => {
        try {
          const response = await request(new URL('/healthz', base), { dispatcher: this.agent, headersTimeout: 2000, bodyTimeout: 2000 })
          await response.body.dump()
          return response.statusCode === 200
        } catch {
          return false
        }
      }),
    )
    return checks.some(Boolean)
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}
