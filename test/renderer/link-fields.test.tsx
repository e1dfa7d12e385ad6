import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { renderToString } from 'react-dom/server'
import { StaticRouter } from 'react-router-dom'
import t from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { SiteRoutes } from '../../renderer/app/app-root.tsx'
import { ROUTER_LINKS } from '../../renderer/app/components/router-links.tsx'
import { ALL_SCREENS } from '../../renderer/app/screens/all-screens.ts'
import { payloadJson } from '../../gateway/payload/payload-json.ts'
import { PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import { LINK_SCHEMES, linkHref } from '../../shared/link-href.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { RENDER_REQUEST_CONTENT_TYPE, RenderSigner, encodeRenderRequest } from '../../shared/render-protocol/index.ts'
import { signedHeaders } from '../helpers/render-signing.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * Addresses an editor could type into a URL field, or an import bring: none
 * may become a link, on the page the server writes nor in the page the
 * browser renders from a payload after a navigation.
 */
const HOSTILE = ['data:text/html,<script>alert(1)</script>', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', 'vbscript:msgbox(1)', 'javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', '//elders.example/x', '/\\elders.example/x']
/** A link in an editor's rich text, to an address of a scheme a link may not have. */
const RICH_TEXT_HOSTILE = 'vbscript:msgbox(2)'
const DANGER = /href="(?:\s*(?:data|vbscript|javascript|java\s+script):|\/\/|\/\\)/i

/** The shipped content with a hostile address in every URL field the site writes into a link: the insurers' websites, the register links, the menus, the home page's call to action, the offices' maps. */
function hostileContent(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-links-'))
  cpSync(loadGatewayConfig({}).contentDir, dir, { recursive: true })
  const rewrite = (file: string, change: (content: { entries?: { fields: Record<string, unknown> }[]; globalSets?: { fields: Record<string, unknown> }[] }) => void): void => {
    const content = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Parameters<typeof change>[0]
    change(content)
    writeFileSync(join(dir, file), JSON.stringify(content))
  }
  const hostile = (index: number): string => HOSTILE[index % HOSTILE.length] as string
  rewrite('site-insurers.json', (content) => content.entries?.forEach((entry, index) => (entry.fields.website = hostile(index))))
  rewrite('site-establishments.json', (content) => content.entries?.forEach((entry, index) => (entry.fields.mapUrl = hostile(index + 1))))
  rewrite('site-pages.json', (content) =>
    content.entries?.forEach((entry) => {
      if ('ctaLinkUrl' in entry.fields) entry.fields.ctaLinkUrl = hostile(2)
      // A link in rich text too: the sanitiser takes its href out, and says so.
      if ((entry as { slug?: string }).slug === 'contact') entry.fields.text = `${String(entry.fields.text)}<p><a href="${RICH_TEXT_HOSTILE}">Hier niet heen</a></p>`
    }),
  )
  rewrite('site-globals.json', (content) => {
    const fields = content.globalSets?.[0]?.fields as Record<string, unknown>
    Object.assign(fields, { afmRegisterUrl: hostile(0), kifidRegisterUrl: hostile(1), kvkRegisterUrl: hostile(2) })
    for (const menu of ['mainNavigation', 'footerNavigation']) {
      const links = fields[menu] as { label: string; url: string }[]
      fields[menu] = [...links, ...HOSTILE.map((url, index) => ({ label: `Kwaad ${index}`, url }))]
    }
  })
  return dir
}

const contentDir = hostileContent()
t.teardown(() => rmSync(contentDir, { recursive: true, force: true }))
const system = await startSystem({ CONTENT_DIR: contentDir, PAGE_CACHE: 'false' })
t.teardown(() => system.close())

t.test('linkHref keeps web addresses and paths of the site, and nothing else', async (t) => {
  for (const href of ['https://www.asr.nl', 'http://example.org/a?b=c#d', '/onze-dienstverlening/schade-melden', '#inhoud']) t.equal(linkHref(href), href, href)
  t.equal(linkHref('  https://www.asr.nl  '), 'https://www.asr.nl', 'trimmed')
  for (const href of [...HOSTILE, 'tel:+31881234599', 'mailto:info@havenborg.nl', 'ftp://example.org', 'www.asr.nl', '', null, undefined, 42]) t.equal(linkHref(href), undefined, String(href))
  t.equal(linkHref('tel:+31881234599', LINK_SCHEMES), 'tel:+31881234599', 'tel: where a field may hold one')
  t.equal(linkHref('mailto:info@havenborg.nl', LINK_SCHEMES), 'mailto:info@havenborg.nl')
  t.equal(linkHref('data:text/html,x', LINK_SCHEMES), undefined)
})

/** The page as it shows: its payload's script names the hostile addresses, as data. */
const withoutScripts = (html: string): string => html.replace(/<script[\s\S]*?<\/script>/g, '')

const PAGES = ['/', '/onze-verzekeringen', '/kantoren', '/contact']

t.test('a hostile address in a URL field is no link on the page: the insurer\'s name, the register number and the map are plain text or left out', async (t) => {
  for (const path of PAGES) {
    const html = withoutScripts(await (await request(`${system.url}${path}`)).body.text())
    t.notMatch(html, DANGER, `${path}: no data:, vbscript:, javascript: or off-site href`)
    t.notMatch(html, /Kwaad \d/, `${path}: a menu link that may not be a link is left out`)
    t.match(html, /AFM-vergunning (?:<!-- -->)?12045678/, `${path}: the register number is still shown`)
  }
  const insurers = await (await request(`${system.url}/onze-verzekeringen`)).body.text()
  t.match(insurers, /<li>a\.s\.r\.<\/li>/, 'the insurer\'s name, without a link')
  const drops = system.gatewayLogs.lines.filter((line) => line.msg === 'a link from the CMS was dropped: a link may not go to its address')
  t.ok(drops.some((line) => line.field === 'website' && line.address === HOSTILE[0]), 'each drop is logged, with its field and address')
  t.ok(drops.some((line) => line.field === 'mainNavigation'), 'a menu link too')
  t.ok(drops.some((line) => line.field === 'text' && line.address === RICH_TEXT_HOSTILE), 'a link in rich text too')
  t.match(withoutScripts(await (await request(`${system.url}/contact`)).body.text()), '<a>Hier niet heen</a>', 'its text stays, without the link')
  t.equal(new Set(drops.map((line) => `${String(line.field)} ${String(line.address)}`)).size, drops.length, 'each once')
})

t.test('the payloads the browser renders from hold no such address, and the page it renders from one has no such link', async (t) => {
  for (const path of PAGES) {
    const payload = (await (await request(`${system.url}${path === '/' ? '' : path}${PAYLOAD_SUFFIX}`)).body.json()) as PagePayload
    t.notMatch(JSON.stringify(payload), /vbscript:|data:text|javascript:|elders\.example|Kwaad/i, `${path}: the payload holds none of the hostile addresses`)
    const html = renderToString(
      <StaticRouter location={payload.fullPath}>
        <SiteRoutes payload={payload} deferred={null} screens={ALL_SCREENS} links={ROUTER_LINKS} />
      </StaticRouter>,
    )
    t.match(html, /AFM-vergunning/, `${path}: rendered`)
    t.notMatch(html, DANGER, `${path}: no data:, vbscript:, javascript: or off-site href`)
  }
})

t.test('a renderer drops them from a render request it is sent, whoever sent it', async (t) => {
  const payload = (await (await request(`${system.url}${PAYLOAD_SUFFIX}`)).body.json()) as PagePayload
  const site = payload.data.site as { globalSet: Record<string, unknown> }
  const page = payload.data.page as { entry: Record<string, unknown> }
  const hostile: PagePayload = {
    ...payload,
    data: {
      ...payload.data,
      site: { globalSet: { ...site.globalSet, afmRegisterUrl: HOSTILE[0], kvkRegisterUrl: HOSTILE[2], mainNavigation: [{ label: 'Kwaad', url: HOSTILE[1] }] } },
      page: { ...page, entry: { ...page.entry, ctaLinkUrl: HOSTILE[3] } },
    },
  }
  const body = encodeRenderRequest(payloadJson(hostile), [])
  const signer = new RenderSigner(system.renderSecret ?? '')
  const response = await request(`${system.rendererUrl}/`, {
    method: 'POST',
    headers: signedHeaders(signer, 'POST', '/', { 'content-type': RENDER_REQUEST_CONTENT_TYPE }, body),
    body,
  })
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.notMatch(html, /vbscript:|data:text|javascript:|Kwaad/i, 'not in the page, nor in the payload it embeds')
  t.match(html, /AFM-vergunning/, 'the register number is still shown')
  t.ok(system.rendererLogs.lines.some((line) => line.field === 'afmRegisterUrl'), 'the renderer logs the drop')
})
