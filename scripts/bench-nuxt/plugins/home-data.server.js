// The page's data on the server, parsed for this request from the text server/plugins/home-data.js read when the
// server started, put in the state that Nuxt serialises into the page for hydration (as this site's page carries
// its payload).
export default defineNuxtPlugin(() => {
  const { payload, deferred } = JSON.parse(globalThis.benchHomeJson)
  useState('home', () => ({ ...payload.data, ...deferred, siteUrl: payload.siteUrl }))
})
