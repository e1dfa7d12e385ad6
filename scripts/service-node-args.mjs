// Node's options for the gateway and the renderer, wherever they are started:
// `npm start` (scripts/start.mjs), `npm run dev`, the bench, and, written out
// in full because they cannot import this file, the image's CMD and compose's
// commands (test/deploy.test.ts checks that those carry the same options).
//
// --enable-source-maps: stack traces in the logs point into the TypeScript.
//
// --max-semi-space-size=32 (MiB; Node 20's default is 16): V8's young
// generation for the short-lived objects of a request. With 16 MiB the gateway
// scavenged about 4.4 times per 1,000 fresh pages; a request still in flight
// across two scavenges is moved to the old generation, and after a quiet spell
// (when V8 shrinks the heap) that promotion kept a mark-compact running about
// 1.3 times per 1,000 pages, 10-14 ms each. At 32 MiB: about 1.5 scavenges per
// 1,000 pages and no mark-compacts under the same load. The price is about
// 50 MB more resident memory per process under load.
//
// --no-memory-reducer: V8's memory reducer shrinks the heap of a process that
// has been idle for a while, and then lets it grow back only slowly. A
// gateway loaded again after 150 s of quiet ran a mark-compact 1.5 times per
// 1,000 fresh pages, and 2.6 times in the 8 s after that (every collection a
// full one), at 1,290-1,360 pages a second against 1,660 without the reducer
// (0.09 and then no mark-compacts). Without it an idle process keeps the heap
// it last needed, which the caches' bounds already limit: steady memory, no
// slow minutes after a quiet spell. Figures: docs/performance-history.md, issue 17.
export const SERVICE_NODE_ARGS = Object.freeze(['--enable-source-maps', '--max-semi-space-size=32', '--no-memory-reducer'])
