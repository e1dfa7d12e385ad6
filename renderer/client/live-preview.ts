/**
 * The browser side of Craft's live preview, loaded only by a page rendered
 * for it (document.tsx names this entry only then): no visitor gets a byte
 * of it. It imports nothing the site's own bundle does, so that the build
 * shares no chunk between the two (test/e2e/live-preview-place.test.ts).
 *
 * - iframe-resizer's child script: with Craft's `useIframeResizer` on, the
 *   CMS's parent script sizes the iframe to the page and keeps the scroll
 *   position itself, in its own container (docs/craft.md).
 * - Without it (Craft's default), Craft rebuilds the iframe on every change
 *   and can keep no position in a page of another origin: the page keeps its
 *   own, in session storage, which the frames of one tab share.
 */
import 'iframe-resizer/js/iframeResizer.contentWindow.js'
import { keepPlace } from './live-preview-place.ts'

keepPlace(window)
