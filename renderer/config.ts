import { type Env, type LogFormat, type LogLevel, readBoolean, readInteger, readLogFormat, readLogLevel, readOptionalWsUrl, readString, readUrl } from '../shared/env.ts'
import { readRenderSecret } from '../shared/render-protocol/index.ts'

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
    host: readString(env, 'RENDERER_HOST', '127.0.0.1', {
      subject: 'listening',
      meaning: "address(es) to listen on, as the gateway's `HOST` (`0.0.0.0` in a container: it is only on the internal network)",
      values: 'addresses, `@subnet` or `@name`, comma-separated',
    }),
    port: readInteger(env, 'RENDERER_PORT', 3001, 0, 65535, { subject: 'listening', meaning: 'the renderer\'s port' }),
    gatewayUrl: readUrl(env, 'GATEWAY_URL', 'http://127.0.0.1:3000', {
      subject: 'listening',
      meaning: 'where the renderer gets its data: the only thing it talks to',
      default: '`http://127.0.0.1:3000` (under `npm start`: from `PORT`)',
    }),
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env, process.stdout.isTTY === true),
    renderTimeoutMs: readInteger(env, 'RENDER_TIMEOUT_MS', 10_000, 100, 120_000, { subject: 'renderers', meaning: 'a render still streaming after this is aborted' }),
    payloadTimeoutMs: readInteger(env, 'PAYLOAD_TIMEOUT_MS', 12_000, 100, 120_000, { subject: 'renderers', meaning: 'waiting for the gateway (a payload the render request did not bring)' }),
    graphqlWsUrl: readOptionalWsUrl(env, 'GRAPHQL_WS_URL', {
      subject: 'browser',
      meaning: 'graphql-transport-ws endpoint for live preview updates (`/cms/live` on the embedded content); unset = the browser opens no socket',
    }),
    renderSecret: readRenderSecret(env, {
      subject: 'renderers',
      meaning:
        "the gateway's secret: a render request without its valid signature, too old or seen before gets 403 and nothing is fetched (see [security](security.md#signed-render-requests)). Unset: the renderer renders for anyone who reaches its port, so keep it on a private network",
      default: "unset (under `npm start`: the gateway's)",
    }),
    renderSignatureMaxAgeMs: readInteger(env, 'RENDER_SIGNATURE_MAX_AGE_MS', 10_000, 1000, 300_000, {
      subject: 'renderers',
      meaning:
        'how old a signed render request may be; the signatures admitted within it are remembered (at most 65,536, about 7 MB of heap; when full the oldest go, and nothing signed before them is admitted), so a captured request renders once. Gateway and renderer clocks must agree within 2 s (NTP)',
    }),
    renderReplayCheck: readBoolean(env, 'RENDER_REPLAY_CHECK', true, {
      subject: 'renderers',
      meaning:
        '`false` admits a signed render request whatever its age and however often (logged as a warning at start): only for the benchmark, which replays one signed request with wrk',
    }),
    richTextMemoMaxBytes: readInteger(env, 'RICH_TEXT_MEMO_MAX_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024, {
      subject: 'renderers',
      meaning: "bound of the renderer's memo of sanitised rich text",
    }),
    keptRenderDataMaxBytes: readInteger(env, 'KEPT_RENDER_DATA_MAX_BYTES', 32 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024, {
      subject: 'renderers',
      meaning:
        "bound of the data of live pages' signed render requests the renderer keeps by their body's SHA-256, so that a repeated body is not decoded again and the gateway may send a reference instead of the data (needs `RENDER_SECRET`)",
    }),
    buildPollIntervalMs: readInteger(env, 'BUILD_POLL_INTERVAL_MS', 60_000, 1000, 86_400_000, {
      subject: 'browser',
      meaning:
        'how often the browser checks `builds/latest.json` for a new deployment (first check 1 s after load, 10 s on a connection that reports itself as very slow)',
    }),
    distDir: readString(env, 'DIST_DIR', new URL('../dist', import.meta.url).pathname, {
      subject: 'listening',
      meaning: 'the build output (the client bundle and `client-meta.json`)',
      default: '`dist`',
    }),
  }
}
