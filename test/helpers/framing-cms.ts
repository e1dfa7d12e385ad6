import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/**
 * The CMS that frames the site in live preview: a page of the test's making
 * on a port of the kernel's choosing, `origin` being the site's CMS_ORIGIN.
 */
export async function framingCms(t: Test): Promise<{ origin: string; show(html: string): void }> {
  let page = ''
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    show(html) {
      page = html
    },
  }
}
