import { type Env, type LogFormat, type LogLevel, readBoolean, readInteger, readLogFormat, readLogLevel, readOptionalWsUrl, readSecret, readString, readUrl } from '../shared/env.ts'
import { RENDER_SECRET_MIN_LENGTH } from '../shared/render-signature.ts'

export interface RendererConfig {
  host: string
  port: number
  /** The renderer's only source of data. */
  gatewayUrl: URL
  logLevel: LogLevel
  /** JSON lines, or one readable line per request for people at a terminal. */
  logFormat: LogFormat
  /** A render still streaming after this long is aborted. */
  renderTimeoutMs: number
  payloadTimeoutMs: number
  distDir: string
  /** How often the browser checks builds/latest.json for a new deployment. */
  buildPollIntervalMs: number
  /** graphql-transport-ws endpoint for live preview updates; unset = no socket. */
  graphqlWsUrl: string | undefined
  /** Shared with the gateway: a render request without its signature is refused. Unset = anyone who reaches the port can have a page rendered. */
  renderSecret: string | undefined
  /** A signed render request is refused once this old: a captured one cannot be replayed later. */
  renderSignatureMaxAgeMs: number
  /** Off: a signed request is admitted whatever its age and however often (benchmarks that replay one request); never in production. */
  renderReplayCheck: boolean
  /** Bound of the memo of sanitised rich text. */
  richTextMemoMaxBytes: number
  /** Bound of the data of signed render requests kept by their signature (renderer/kept-render-data.ts). */
  keptRenderDataMaxBytes: number
}

export function loadRendererConfig(env: Env = process.env): RendererConfig {
  return {
    host: readString(env, 'RENDERER_HOST', '127.0.0.1'),
    port: readInteger(env, 'RENDERER_PORT', 3001, 0, 65535),
    gatewayUrl: readUrl(env, 'GATEWAY_URL', 'http://127.0.0.1:3000'),
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env, process.stdout.isTTY === true),
    renderTimeoutMs: readInteger(env, 'RENDER_TIMEOUT_MS', 10_000, 100, 120_000),
    payloadTimeoutMs: readInteger(env, 'PAYLOAD_TIMEOUT_MS', 12_000, 100, 120_000),
    graphqlWsUrl: readOptionalWsUrl(env, 'GRAPHQL_WS_URL'),
    renderSecret: readSecret(env, 'RENDER_SECRET', RENDER_SECRET_MIN_LENGTH, 'REQUIRE_RENDER_SECRET'),
    renderSignatureMaxAgeMs: readInteger(env, 'RENDER_SIGNATURE_MAX_AGE_MS', 10_000, 1000, 300_000),
    renderReplayCheck: readBoolean(env, 'RENDER_REPLAY_CHECK', true),
    richTextMemoMaxBytes: readInteger(env, 'RICH_TEXT_MEMO_MAX_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    keptRenderDataMaxBytes: readInteger(env, 'KEPT_RENDER_DATA_MAX_BYTES', 32 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    buildPollIntervalMs: readInteger(env, 'BUILD_POLL_INTERVAL_MS', 60_000, 1000, 86_400_000),
    distDir: readString(env, 'DIST_DIR', new URL('../dist', import.meta.url).pathname),
  }
}
