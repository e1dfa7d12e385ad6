import { LOGGING_SETTINGS, REQUIRE_RENDER_SECRET_SETTING, type SettingValues, type Env, readSetting, readSettings, settingsOf } from '../shared/env.ts'
import { RENDER_SECRET_MIN_LENGTH, readRenderSecret } from '../shared/render-protocol/index.ts'

/** The project's folder: the default of DIST_DIR is relative to it, from the sources and from the bundle in dist/ alike. */
const ROOT = new URL('..', import.meta.url)

const LISTENING = settingsOf('listening', {
  host: {
    name: 'RENDERER_HOST',
    kind: 'string',
    default: '127.0.0.1',
    values: 'addresses, `@subnet` or `@name`, comma-separated',
    description: "address(es) to listen on, as the gateway's `HOST` (`0.0.0.0` in a container: it is only on the internal network)",
    effect: 'the `url` of the `renderer listening` log line at start',
  },
  port: {
    name: 'RENDERER_PORT',
    kind: 'integer',
    default: 3001,
    min: 0,
    max: 65535,
    description: "the renderer's port, for render requests, `/healthz` and `/metrics` alike (`0`: any free port)",
    effect: 'the `url` of the `renderer listening` log line; the gateway must name it in `RENDERER_URL`',
  },
  gatewayUrl: {
    name: 'GATEWAY_URL',
    kind: 'url',
    default: 'http://127.0.0.1:3000',
    defaultText: '`http://127.0.0.1:3000` (under `npm start`: from `PORT`)',
    description: 'where the renderer gets its data: the only thing it talks to',
    effect: '`gateway` in the `renderer listening` log line; a wrong one shows when a payload must be fetched: the log line `no payload from the gateway` and a 502 page',
  },
  distDir: {
    name: 'DIST_DIR',
    kind: 'path',
    default: 'dist',
    description: 'the build output (the client bundle and `client-meta.json`)',
    effect: "the `<script>` and module preloads of every page name the bundle's files found there",
  },
})

const RENDERERS = settingsOf('renderers', {
  renderTimeoutMs: {
    name: 'RENDER_TIMEOUT_MS',
    kind: 'integer',
    default: 10_000,
    min: 100,
    max: 120_000,
    description: 'a render still streaming this long after it began is aborted (the gateway has its own `RENDER_TIMEOUT_MS` for its wait)',
    effect: 'the log line `render timed out; aborting`; the gateway does not store such a page',
  },
  payloadTimeoutMs: {
    name: 'PAYLOAD_TIMEOUT_MS',
    kind: 'integer',
    default: 12_000,
    min: 100,
    max: 120_000,
    description: "how long the renderer waits for the gateway's answer when it fetches a payload itself (one the render request did not bring)",
    effect: 'a payload that did not come in time: the log line `no payload from the gateway` and the 502 page',
  },
  renderSecret: {
    name: 'RENDER_SECRET',
    kind: 'secret',
    parse: (_value: string | undefined, env: Env) => readRenderSecret(env, readSetting(env, REQUIRE_RENDER_SECRET_SETTING)),
    defaultText: "unset (under `npm start`: the gateway's)",
    values: `at least ${RENDER_SECRET_MIN_LENGTH} characters`,
    companions: [REQUIRE_RENDER_SECRET_SETTING],
    description:
      "the gateway's secret: a render request without its valid signature, too old or seen before gets 403 and nothing is fetched (see [security](security.md#signed-render-requests)). Unset: the renderer renders for anyone who reaches its port, so keep it on a private network",
    effect: 'unset: a warning at start, `RENDER_SECRET is unset`; set: an unsigned request gets 403 and the log line `render request without a valid signature refused`',
  },
  renderSignatureMaxAgeMs: {
    name: 'RENDER_SIGNATURE_MAX_AGE_MS',
    kind: 'integer',
    default: 10_000,
    min: 1000,
    max: 300_000,
    description:
      'how old a signed render request may be; the signatures admitted within it are remembered (at most 65,536, about 7 MB of heap; when full the oldest go, and nothing signed before them is admitted), so a captured request renders once. Gateway and renderer clocks must agree within 2 s (NTP)',
    effect: 'a signed request sent again after this long: 403 and the log line `render request without a valid signature refused`',
  },
  renderReplayCheck: {
    name: 'RENDER_REPLAY_CHECK',
    kind: 'boolean',
    default: true,
    description:
      '`false` admits a signed render request whatever its age and however often (logged as a warning at start): only for the benchmark, which replays one signed request with wrk',
    effect: '`false`: the warning `RENDER_REPLAY_CHECK is off` at start',
  },
  richTextMemoMaxBytes: {
    name: 'RICH_TEXT_MEMO_MAX_BYTES',
    kind: 'integer',
    default: 8 * 1024 * 1024,
    min: 1024,
    max: 1024 * 1024 * 1024,
    description: "bound of the renderer's memo of sanitised rich text (a text met again is not sanitised again)",
    effect: "no gauge of its own: it bounds a part of the renderer's memory (`process_resident_memory_bytes` on its `/metrics`)",
  },
  keptRenderDataMaxBytes: {
    name: 'KEPT_RENDER_DATA_MAX_BYTES',
    kind: 'integer',
    default: 32 * 1024 * 1024,
    min: 1024 * 1024,
    max: 1024 * 1024 * 1024,
    description:
      "bound of the data of live pages' signed render requests the renderer keeps by their body's SHA-256, so that a repeated body is not decoded again and the gateway may send a reference instead of the data (needs `RENDER_SECRET`)",
    effect: '`render_data_total{source="kept|reference|unknown_reference"}` on the renderer\'s `/metrics`: `unknown_reference` (answered 409) rising means it is too small',
  },
})

const BROWSER = settingsOf('browser', {
  graphqlWsUrl: {
    name: 'GRAPHQL_WS_URL',
    kind: 'ws-url',
    description: 'graphql-transport-ws endpoint for live preview updates (`/cms/live` on the embedded content); unset = the browser opens no socket',
    effect: "a page in live preview opens a WebSocket to it (the browser's developer tools, Network, WS)",
  },
  buildPollIntervalMs: {
    name: 'BUILD_POLL_INTERVAL_MS',
    kind: 'integer',
    default: 60_000,
    min: 1000,
    max: 86_400_000,
    description:
      'how often the browser checks `builds/latest.json` for a new deployment (first check 1 s after load, 10 s on a connection that reports itself as very slow)',
    effect: "an open page requests `/builds/latest.json` this often (the browser's developer tools, Network)",
  },
})

/** Every setting of the renderer, a table per subject; docs/configuration.md is made from them. */
export const RENDERER_SETTINGS = [LISTENING, RENDERERS, BROWSER, LOGGING_SETTINGS] as const

export type RendererConfig = SettingValues<typeof LISTENING.table & typeof RENDERERS.table & typeof BROWSER.table & typeof LOGGING_SETTINGS.table>

/** Reads and checks every setting of the renderer; a bad value throws a ConfigError naming it. */
export function loadRendererConfig(env: Env = process.env): RendererConfig {
  return {
    ...readSettings(env, LISTENING.table, ROOT),
    ...readSettings(env, RENDERERS.table),
    ...readSettings(env, BROWSER.table),
    ...readSettings(env, LOGGING_SETTINGS.table),
  }
}
