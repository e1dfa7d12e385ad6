// The Nuxt peer of `npm run bench` (scripts/bench-nuxt.mjs copies this folder
// into .cache/bench-nuxt/ and builds it there): the home page rendered on
// every request from the bench's payload, as a small Nuxt 3 site would.
// Its links are plain anchors, not <NuxtLink>: NuxtLink resolves each of the
// page's 45 links through the router on the server, which cost about half as
// much again per page (docs/performance.md), and a peer at its fastest makes
// "ahead of Nuxt" a claim that holds.
export default defineNuxtConfig({
  compatibilityDate: '2025-07-01',
  telemetry: false,
  devtools: { enabled: false },
  sourcemap: { server: false, client: false },
  app: {
    head: {
      htmlAttrs: { lang: 'nl' },
      meta: [{ name: 'viewport', content: 'width=device-width, initial-scale=1' }],
      link: [{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }],
    },
  },
})
