import { renderToString } from 'react-dom/server'
import t from 'tap'
import { DRAFT_MARKER_TEXT } from '../../renderer/app/components/draft-marker.tsx'
import { isUnpublished, publicationDate } from '../../renderer/app/components/format.ts'
import {
  PREVIEW_BAR_BUTTON,
  PREVIEW_BAR_MISSING,
  PREVIEW_BAR_MISSING_DETAIL,
  PREVIEW_BAR_PUBLISHED,
  PREVIEW_BAR_PUBLISHED_DETAIL,
  PREVIEW_BAR_TEXT,
  PreviewBar,
  previewEndAction,
  previewShows,
  showsPreviewBar,
} from '../../renderer/server/preview-bar.tsx'
import { JobScreen } from '../../renderer/app/screens/job-screen.tsx'
import type { PagePayload } from '../../shared/payload.ts'

const payload = (fullPath: string, preview: boolean, data: Record<string, unknown> = {}): PagePayload => ({
  path: fullPath.split('?')[0] ?? fullPath,
  fullPath,
  routeId: 'job',
  screen: 'job',
  status: 200,
  data,
  pending: [],
  page: 1,
  preview,
  siteUrl: 'https://www.havenborg.example',
  canonicalPath: null,
})

t.test('the bar: on a preview, never on a live page nor in live preview', async (t) => {
  t.ok(showsPreviewBar(payload('/over-ons', true)), 'a preview by the cookie')
  t.ok(showsPreviewBar(payload('/over-ons?x-craft-preview=1&token=abc', true)), 'a preview link')
  t.notOk(showsPreviewBar(payload('/over-ons', false)), 'a live page')
  t.notOk(showsPreviewBar(payload('/over-ons?x-craft-live-preview=abc&token=abc', true)), "live preview's iframe")
})

t.test("the bar's form goes back to the page without its preview link, keeping what the route reads", async (t) => {
  t.equal(previewEndAction('/over-ons?x-craft-preview=1&token=abc'), '/voorbeeld/sluiten?terug=%2Fover-ons')
  t.equal(previewEndAction('/actueel?pagina=2&x-craft-preview=1&token=abc'), '/voorbeeld/sluiten?terug=%2Factueel%3Fpagina%3D2')
  t.equal(previewEndAction('/'), '/voorbeeld/sluiten?terug=%2F')
})

t.test("unpublished as Craft says it: a draft, or any status but live; no publication date then", async (t) => {
  const entry = (isDraft: boolean | null, status: string | null, postDate: string | null = '2026-11-10T09:00:00+01:00') => ({ isDraft, status, postDate })
  t.notOk(isUnpublished(entry(false, 'live')))
  t.same(publicationDate(entry(false, 'live')), { iso: '2026-11-10T09:00:00+01:00', text: '10 november 2026' })
  for (const [label, unpublished] of [
    ['a draft of a published entry', entry(true, 'live')],
    ['a disabled entry', entry(false, 'disabled')],
    ['a post date still to come', entry(false, 'pending')],
    ["a new entry's draft without a post date", entry(true, 'enabled', null)],
  ] as const) {
    t.ok(isUnpublished(unpublished), label)
    t.equal(publicationDate(unpublished), undefined, `${label}: no date`)
  }
  t.equal(publicationDate(entry(false, 'live', null)), undefined, 'no post date: nothing, never 1 January 1970')
})

t.test('a job previewed as a draft is marked under its title; a published one is not', async (t) => {
  const job = (isDraft: boolean) => ({ entry: { id: '1', title: 'Adviseur', slug: 'adviseur', uri: 'jobs/adviseur', postDate: null, dateUpdated: null, sectionHandle: 'jobs', typeHandle: 'job', status: 'live', isDraft, intro: null, location: 'Zwolle', hours: null, salaryMin: null, salaryMax: null, employmentType: null, validThrough: null } })
  const draft = renderToString(<JobScreen payload={payload('/werken-bij/adviseur', true, { entry: job(true) })} deferred={null} />)
  t.match(draft, new RegExp(`<h1>Adviseur</h1><p class="draft-marker">${DRAFT_MARKER_TEXT}</p>`))
  const live = renderToString(<JobScreen payload={payload('/werken-bij/adviseur', false, { entry: job(false) })} deferred={null} />)
  t.notMatch(live, 'draft-marker')
})

t.test("the bar's wording says what the preview shows: unpublished content, the published version, or no page", async (t) => {
  const draft = { entry: { id: '1', isDraft: true, status: 'live' } }
  const live = { entry: { id: '1', isDraft: false, status: 'live', revisionId: null } }
  const cases = [
    ['a draft', payload('/over-ons', true, draft), 'unpublished', PREVIEW_BAR_TEXT, undefined],
    ['an entry not live', payload('/over-ons', true, { entry: { id: '1', isDraft: false, status: 'disabled' } }), 'unpublished', PREVIEW_BAR_TEXT, undefined],
    ['only live content (an unknown token)', payload('/over-ons', true, live), 'published', PREVIEW_BAR_PUBLISHED, PREVIEW_BAR_PUBLISHED_DETAIL],
    ['no page', { ...payload('/over-ons', true, live), status: 404 }, 'missing', PREVIEW_BAR_MISSING, PREVIEW_BAR_MISSING_DETAIL],
    ['a page that failed otherwise', { ...payload('/over-ons', true, live), status: 500 }, 'unpublished', PREVIEW_BAR_TEXT, undefined],
  ] as const
  for (const [label, page, shows, text, detail] of cases) {
    t.equal(previewShows(page), shows, `${label}: ${shows}`)
    const html = renderToString(<PreviewBar fullPath={page.fullPath} shows={shows} />)
    t.match(html, `<strong>${text}</strong>`, `${label}: says so`)
    if (detail) t.match(html, detail, `${label}: and what to do`)
    else t.notMatch(html, 'voorbeeldlink', `${label}: nothing about the link`)
    t.match(html, `>${PREVIEW_BAR_BUTTON}</button>`, `${label}: the way out`)
    t.match(html, `data-shows="${shows}"`)
  }
})
