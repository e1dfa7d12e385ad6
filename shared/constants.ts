/**
 * The whole behavioural contract of the site in one file: every number, name
 * and colour the specification fixes. Nothing else in the code base repeats
 * these values.
 */

/** Default `{product}` of the handles: the fictional brand of the embedded content. */
export const DEFAULT_SITE_HANDLE = 'havenborg'

/** Placeholder for the site handle in route patterns, section handles and slugs. */
export const PRODUCT_PLACEHOLDER = '{product}'

/** Apollo's name for the one client the site uses; part of every query cache key. */
export const DEFAULT_CLIENT_ID = 'default'

/** Length of a query cache key (hash of query, variables and client id). */
export const CACHE_KEY_LENGTH = 10

// Tokens and preview
export const CRAFT_TOKEN_HEADER = 'x-craft-token'
export const PREVIEW_QUERY_PARAMS = ['x-craft-preview', 'x-craft-live-preview'] as const
export const PREVIEW_TOKEN_QUERY_PARAM = 'token'
/**
 * Marks a request as Craft's live preview when a proxy or a headless front
 * end passes it on as a header (Craft's own iframe has it in the query): the
 * gateway hands it to the renderer in previews only, signed.
 */
export const LIVE_PREVIEW_HEADER = 'x-craft-live-preview'
/**
 * Craft's rule for a token (craftcms/cms src/web/Request.php, `_findToken`):
 * one with any other character is a 400 before any GraphQL runs.
 */
export const CRAFT_TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/
export const TOKEN_STORAGE_KEY = 'apollo:default.token'
export const TOKEN_COOKIE_NAME = 'craft_token'
/** The page of what to do after damage: the damage action on every page links there, beside the 24/7 number. */
export const DAMAGE_PAGE_PATH = '/onze-dienstverlening/schade-melden'
/** The offices' page, with each office's own opening hours: the footer's hours (the telephone's) point there. */
export const OFFICES_PAGE_PATH = '/kantoren'
export const TOKEN_COOKIE_MAX_AGE_SECONDS = 604_800
/** Where the preview bar's button posts to end a preview: the token cookie cleared, back to the live page (`terug`). */
export const PREVIEW_END_PATH = '/voorbeeld/sluiten'
export const PREVIEW_END_RETURN_PARAM = 'terug'

// Error page
export const NOT_FOUND_SECTION = 'notFound'
export const NOT_FOUND_FALLBACK_HEADING = '404 - Pagina niet gevonden'
export const GENERIC_ERROR_HEADING = 'Er is iets misgegaan.'
/** A client navigation's data could not be loaded, and the page could not be loaded whole either. */
export const LOAD_FAILED_MESSAGE = 'De pagina kon niet worden geladen.'
/** A client navigation failed offline: the page loads by itself once the browser is online again. */
export const OFFLINE_MESSAGE = 'Geen verbinding met internet. De pagina laadt vanzelf zodra u weer online bent.'
export const notFoundMessage = (fullPath: string): string => `Page not found: ${fullPath}`
export const invalidRouteMessage = (path: string): string => `Page Not Found: ${path}`

// Loading bar
export const LOADING_BAR = {
  throttleMs: 200,
  durationMs: 2000,
  hideDelayMs: 500,
  resetDelayMs: 400,
  heightPx: 3,
  colour: '#6798df',
  errorPageColour: '#0072e3',
} as const

// Navigation and deployment updates
export const RELOAD_GUARD_MS = 10_000
/**
 * A client navigation this long or shorter never sends the next ones to full page loads, whatever the first paint
 * was: the fall-back is for slow connections (Slow 3G: seconds), not for one navigation that a busy CPU held up.
 */
export const FULL_LOAD_FALLBACK_MIN_MS = 2000
/**
 * A client navigation still without its page after this long is given up and the page loaded whole, where the
 * browser shows its own progress and its stop and reload buttons. On Slow 3G (2 s per round trip, 50 kB/s) the
 * payload and the screen's chunk, fetched together, take one round trip and a few kilobytes: about 3 s. 8 s, the most
 * issue 49 allows, cuts off no navigation that was still coming; one slower yet would not be quicker as a full load,
 * which needs more round trips and more bytes.
 */
export const NAVIGATION_TIMEOUT_MS = 8000
export const MANIFEST_FETCH_DELAY_MS = 1000
export const MAX_CONCURRENT_PRELOADS = 5
export const IDLE_CALLBACK_FALLBACK_MS = 50
export const DEFAULT_SCROLL_BEHAVIOUR = 'smooth'
export const SSR_FORCE_FETCH_DELAY_MS = 100

// Optional subscriptions
export const WS_RETRY_ATTEMPTS = 5
export const WS_FATAL_CLOSE_CODES = [4400, 4401, 4403, 4406, 4409, 4429, 4500, 4005, 4004] as const
export const WS_BACKOFF_START_MS = 1000
export const WS_JITTER_MIN_MS = 300
export const WS_JITTER_MAX_MS = 3000

/** User agents that get complete HTML before the first byte and no client error page. */
export const BOT_USER_AGENT_PATTERN = /bot|lighthouse|facebookexternalhit|google/i

/** A plain lowercase slug: what slug routes accept before asking the CMS. */
export const SLUG_PATTERN = /^[a-z0-9-]{1,96}$/

// Endpoints
export const API_PATH = '/api'
export const EMBEDDED_CMS_PATH = '/cms/api'
/** The embedded CMS's graphql-transport-ws endpoint for live preview updates. */
export const LIVE_UPDATES_PATH = '/cms/live'
export const PAYLOAD_SUFFIX = '/_payload.json'
export const LATEST_BUILD_PATH = '/builds/latest.json'
export const BUILD_META_PREFIX = '/builds/meta/'
/** `npm run dev` only: the gateway's stream that tells open pages to reload after a rebuild. */
export const DEV_RELOAD_PATH = '/__dev/reload'
/** The Server-Timing entry in which the gateway names the generation an answer was made in (`npm run dev` only). */
export const DEV_GENERATION_TIMING = 'dev-generation'

/**
 * Longest request target (path and query) the gateway reads; a longer one, or
 * a path longer than MAX_SITE_PATH_LENGTH (shared/site-path.ts), gets 414.
 * nginx's default request line is about as long (large_client_header_buffers
 * 8k), and no address of the site comes near it: a query carries a page
 * number or a preview token.
 */
export const MAX_URL_LENGTH = 8192

/** Cache-Control of an answer for this client alone, kept nowhere: errors, previews, refusals. */
export const PRIVATE_NO_STORE = 'private, no-store'

// Headers between the services
export const REQUEST_ID_HEADER = 'x-request-id'
export const CACHE_STATUS_HEADER = 'x-cache'
/** The renderer tells the gateway the nonce of a page's inline scripts; it never reaches the visitor. */
export const CSP_NONCE_HEADER = 'x-csp-nonce'
/**
 * On every answer a renderer sends: its build id. The gateway takes a render only from an answer that carries it
 * (or a page's CSP nonce, from a renderer of a build before the header), never from whatever else answers at a
 * renderer's address: a proxy on the default route once the gateway is cut from the renderers' network, or a new
 * service on a reused address (gateway/renderers/renderer-pool.ts).
 */
export const RENDERER_BUILD_HEADER = 'x-renderer-build'
/** HMAC of a render request under RENDER_SECRET (shared/render-protocol/signature.ts); the renderer renders nothing without it when the secret is set. */
export const RENDER_SIGNATURE_HEADER = 'x-render-signature'
/**
 * Trailer of a streamed page, sent after its last byte: `complete`, or
 * `degraded` when part of it failed after the 200 went out (deferred data,
 * render timeout). A page rendered whole sends it as a header. Only complete
 * pages may be cached.
 */
export const RENDER_OUTCOME_TRAILER = 'x-render-outcome'
/** The error shown when a page's data could not be assembled at all (gateway or renderer side). */
export const PAYLOAD_UNAVAILABLE_MESSAGE = 'De gegevens van deze pagina konden niet worden opgehaald.'
/** Largest page data the gateway hands a renderer with a render request. */
export const RENDER_REQUEST_BODY_LIMIT_BYTES = 8 * 1024 * 1024

/** Render request bodies the gateway keeps, one per live page, while the page's data is unchanged (gateway/pages/render-body.ts). */
export const RENDER_BODY_MEMO_MAX_BYTES = 16 * 1024 * 1024

/** Global set with navigation, contact details and footer. */
export const SITE_SETTINGS_HANDLE = 'siteSettings'

/** Widths of the image transforms the site asks the CMS for (srcset). */
export const IMAGE_WIDTHS = [480, 800, 1200, 1600] as const
/** The transform asked of the CMS for an image shared on social media (og:image, JSON-LD): the size those sites show. */
export const SHARE_IMAGE = { width: 1200, height: 630 } as const

/** The sitemaps protocol's limit of addresses in one sitemap file (SITEMAP_MAX_URLS may set fewer). */
export const SITEMAP_PROTOCOL_MAX_URLS = 50_000

/** Articles on one page of the news overview. */
export const ARTICLES_PER_PAGE = 6
/** Jobs on one page of the jobs overview (/werken-bij): a page's size does not grow with the vacancies. */
export const JOBS_PER_PAGE = 12
/** Services on one page of the services overviews (/onze-dienstverlening, /services). */
export const SERVICES_PER_PAGE = 12
/** Insurances on one page of the insurance overview (/onze-verzekeringen), grouped by category on the page. */
export const INSURANCES_PER_PAGE = 24
/** Articles in the home page's "latest news" block, and under "Meer nieuws" of an article (less the article itself). */
export const HOME_LATEST_ARTICLES = 3

/** A renderer host name that does not resolve is logged at most once in this long (per host): a lasting DNS outage is one line per interval. */
export const DNS_FAILURE_LOG_INTERVAL_MS = 30_000

// Shutdown
/** SIGTERM to exit: what the container runtime waits for before SIGKILL is longer (stop_grace_period). */
export const SHUTDOWN_DEADLINE_MS = 10_000
/** How long the gateway waits for pages in flight before it closes, inside the deadline. */
export const SHUTDOWN_DRAIN_MS = 8000

/**
 * A render's first bytes are held back this long (or until the page is
 * complete) so that a renderer dying in that time costs a retry elsewhere, not
 * a broken page; a slower page streams on after it.
 */
export const RENDERER_COMMIT_WINDOW_MS = 150

/**
 * A renderer that failed a render or its health check is skipped until a
 * probe passes. Its probes back off: the first this long after the failure,
 * then twice as long each time, up to RENDERER_PROBE_INTERVAL_MS; each delay
 * is drawn from its upper part (jitter), so gateways do not probe in step.
 */
export const RENDERER_PROBE_BACKOFF_START_MS = 250
/** The share of a probe's delay that jitter may take off: a delay d is drawn from [d × (1 − this), d]. */
export const RENDERER_PROBE_JITTER = 0.5
/** A health check of a renderer that has not answered in this long has failed (a hung renderer). */
export const RENDERER_PROBE_TIMEOUT_MS = 2000
/** Connecting to a renderer: longer than this and the renderer counts as down. */
export const RENDERER_CONNECT_TIMEOUT_MS = 2000

/**
 * How long one request's render of a page past its TTL holds off the others
 * (they get the stale page meanwhile) when it neither stores the page nor
 * says it is over: a render hung past every upstream timeout.
 */
export const PAGE_REVALIDATION_MS = 10_000

// Metrics
/**
 * How often each service samples its event loop's delay for the
 * `nodejs_eventloop_lag_*` metrics (prom-client's default is 10 ms). At 10 ms
 * an idle gateway or renderer woke 100 times a second and spent about 5 ms of
 * CPU a second doing so, half a percent of a core per process. At 100 ms every
 * stall of 100 ms or more is still recorded, and shorter ones in proportion to
 * their length.
 */
export const EVENT_LOOP_SAMPLE_MS = 100
