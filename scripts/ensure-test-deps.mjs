// Installs what the tests need from Debian's packages when it is missing:
// chromium and firefox-esr for the browser tests (the second engine driven
// over WebDriver BiDi, test/helpers/firefox.ts), nginx and wrk for the benchmark's smoke
// run, redis-server for the shared cache tier's tests, poppler-utils
// (pdftotext) to read printed pages sheet by sheet. Runs once before the
// test runner.
import { execSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const needed = [
  { binary: '/usr/bin/chromium', pkg: 'chromium' },
  { binary: '/usr/bin/firefox-esr', pkg: 'firefox-esr' },
  { binary: '/usr/sbin/nginx', pkg: 'nginx-light' },
  { binary: '/usr/bin/wrk', pkg: 'wrk' },
  { binary: '/usr/bin/redis-server', pkg: 'redis-server' },
  { binary: '/usr/bin/pdftotext', pkg: 'poppler-utils' },
].filter(({ binary }) => !existsSync(binary))
if (needed.length > 0) {
  const names = needed.map(({ pkg }) => pkg).join(' ')
  console.log(`installing ${names} from Debian's packages for the tests`)
  const sudo = process.getuid?.() === 0 ? '' : 'sudo '
  execSync(`${sudo}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq --no-install-recommends ${names}`, {
    stdio: 'inherit',
  })
}
