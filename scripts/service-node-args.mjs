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
// 50 MB more resident memory per process under load (V8 gives it back when the
// process is idle). Figures: docs/performance.md, issue 17.
export const SERVICE_NODE_ARGS = Object.freeze(['--enable-source-maps', '--max-semi-space-size=32'])
