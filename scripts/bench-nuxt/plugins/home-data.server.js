// The page's data on the server: what server/plugins/home-data.js read when the server started, put in the
// state that Nuxt serialises into the page for hydration (as this site's page carries its payload).
export default defineNuxtPlugin(() => {
  const { payload, deferred } = globalThis.benchHome
  useState('home', () => ({ ...payload.data, ...deferred, siteUrl: payload.siteUrl }))
})
