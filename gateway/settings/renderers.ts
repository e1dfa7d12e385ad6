import { REQUIRE_RENDER_SECRET_SETTING, readSetting, settingsOf } from '../../shared/env.ts'
import { RENDER_SECRET_MIN_LENGTH, readRenderSecret } from '../../shared/render-protocol/index.ts'

/** The renderers the gateway sends its renders to, and how it talks to them. */
export const RENDERERS_SETTINGS = settingsOf('renderers', {
  rendererUrls: {
    name: 'RENDERER_URL',
    kind: 'url-list',
    default: 'http://127.0.0.1:3001',
    defaultText: '`http://127.0.0.1:3001` (under `npm start`: from `RENDERER_PORT`)',
    description:
      'the renderer(s), comma-separated; a host name counts once per address it resolves to (`docker compose --scale renderer=3`, Host header kept). Renders go round robin, skipping a renderer that failed until its `/healthz` passes (see [operations](operations.md#renderers-round-robin-and-failures))',
    effect: '`renderers` in the `gateway listening` log line; `builds_in_service{role="renderer"}` on `/metrics` counts the renderers up',
  },
  rendererProbeIntervalMs: {
    name: 'RENDERER_PROBE_INTERVAL_MS',
    kind: 'integer',
    default: 2000,
    min: 100,
    max: 60_000,
    description: "how often each renderer in turn has its `/healthz` checked (2 s timeout), and the longest a skipped renderer's probes back off to",
    effect: 'a stopped renderer is logged `renderer skipped` within about this time (plus the 2 s a probe may take), and `renderer back in turn` at most about this long after it answers again',
  },
  rendererDnsRefreshMs: {
    name: 'RENDERER_DNS_REFRESH_MS',
    kind: 'integer',
    default: 5000,
    min: 100,
    max: 300_000,
    description: 'how often host names in `RENDERER_URL` are resolved again (an IP address is never looked up)',
    effect: 'after `--scale renderer=N`, within this time `builds_in_service{role="renderer"}` on `/metrics` counts the new replicas; a name that stops resolving logs `renderer host name does not resolve`',
  },
  renderSecret: {
    name: 'RENDER_SECRET',
    kind: 'secret',
    parse: (_value: string | undefined, env) => readRenderSecret(env, readSetting(env, REQUIRE_RENDER_SECRET_SETTING)),
    defaultText: 'unset (under `npm start`: a random one per run)',
    values: `at least ${RENDER_SECRET_MIN_LENGTH} characters`,
    companions: [REQUIRE_RENDER_SECRET_SETTING],
    description:
      'secret shared with the renderers: the gateway signs every render request as it sends it (see [security](security.md#signed-render-requests)). Unset: unsigned; stored pages are then not shared through Redis',
    effect: "a renderer with another secret (or none while this one signs) answers 403: the gateway's pages are its 503 page; the renderer logs `render request without a valid signature refused`",
  },
  renderTimeoutMs: {
    name: 'RENDER_TIMEOUT_MS',
    kind: 'integer',
    default: 15_000,
    min: 100,
    max: 120_000,
    description:
      "how long the gateway waits for a renderer's answer to start, and between two chunks of it; past it the render is given up (a renderer that never answered is then skipped as hung)",
    effect: 'a render past it: the stored page (`X-Cache: STALE`) or the Dutch 503 page, and the log line `renderer skipped`',
  },
  renderStallMs: {
    name: 'RENDER_STALL_MS',
    kind: 'integer',
    default: 1000,
    min: 10,
    max: 120_000,
    description:
      "how long a render may go without an answer (a streamed page's head, or a whole page) before the gateway stops waiting on that renderer: the render is given up and sent once to another renderer that is up, or, with none or when that one stalls too, the stored page answers. With neither, the render is waited on as before (up to `RENDER_TIMEOUT_MS`). The stalled renderer gets no new render while another is up, until its `/healthz` passes (checked at once). Above `RENDER_TIMEOUT_MS` it never acts (see [operations](operations.md#a-hung-renderer-or-gateway))",
    effect: 'the log line `render stalled; renderer avoided until its health check passes`, then `X-Cache: MISS` from another renderer or `X-Cache: STALE`',
  },
})
