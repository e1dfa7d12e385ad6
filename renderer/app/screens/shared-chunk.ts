// The modules the first visit loads anyway (the app and its layout use them)
// that only some screens import: imported here, through types.ts, by every
// screen, so esbuild bundles them into the one chunk the app and all screens
// share, with React, instead of a chunk for each set of screens using them.
// Each file is compressed on its own, so each costs gzip's overhead: five such
// chunks cost 600 bytes gzip of the first visit (docs/performance.md). A
// screen loads after the app, so this adds nothing to a navigation.
import '../../../shared/constants.ts'
import '../../../shared/image-sources.ts'
import '../../../shared/routes.ts'
import '../../../shared/script-json.ts'
import '../components/contact-details.tsx'
