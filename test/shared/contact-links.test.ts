import t from 'tap'
import { contactParts, e164, linkContactsInHtmlText, telHref } from '../../shared/contact-links.ts'
import { growth } from '../helpers/linear-time.ts'

const links = (text: string) => contactParts(text).filter((part) => typeof part !== 'string')

/**
 * Characters the finder read for a text, and what it found there. Each of
 * its searches is counted from where it began to where it stopped (a pattern
 * spends a bounded number of steps at each place it may start: the patterns'
 * own comments say why), each other pattern or search by the length of what
 * it was given. Counted on the searches themselves, not on a clock.
 */
function work(text: string): { looked: number; found: number } {
  let looked = 0
  const { exec } = RegExp.prototype
  const { indexOf } = String.prototype
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0
    const found = exec.call(this, input)
    looked += (this.global || this.sticky) && found ? this.lastIndex - from : String(input).length - from
    return found
  }
  String.prototype.indexOf = function (this: string, search: string, position?: number) {
    looked += this.length - (position ?? 0)
    return indexOf.call(this, search, position)
  }
  try {
    // Each text once: a short text's parts are remembered.
    const found = contactParts(`${text}\u0000${++texts}`).filter((part) => typeof part !== 'string').length
    return { looked, found }
  } finally {
    RegExp.prototype.exec = exec
    String.prototype.indexOf = indexOf
  }
}
let texts = 0

/**
 * Texts an editor might paste, each a run of some n characters: runs of each
 * kind of character an address or a number is made of, and mixes where one
 * kind of match keeps passing the other's next candidate.
 */
const RUNS: Record<string, (n: number) => string> = {
  '%': (n) => `${'%'.repeat(n)}1`,
  '% then @': (n) => `${'%'.repeat(n)}@`,
  '%a': (n) => `${'%a'.repeat(n / 2)}@`,
  'a.': (n) => `${'a.'.repeat(n / 2)}@x`,
  '+': (n) => `${'+'.repeat(n)}1`,
  '-': (n) => `${'-'.repeat(n)}1@`,
  '@': (n) => '@'.repeat(n),
  '%@': (n) => '%@'.repeat(n / 2),
  'a@': (n) => 'a@'.repeat(n / 2),
  'domain labels': (n) => `x@${'a.'.repeat(n / 2)}1`,
  'domain hyphens': (n) => `x@${'a-'.repeat(n / 2)}`,
  digits: (n) => ` ${'1'.repeat(n)}`,
  'zeros and spaces': (n) => '0 '.repeat(n / 2),
  'almost a number': (n) => '0 1 1 1 1 1 1 1 1 x '.repeat(n / 20),
  'numbers, then bare @s': (n) => `${'06 12345678 '.repeat(n / 24)}${'@'.repeat(n / 2)}`,
  'addresses, then digits': (n) => `${'a@b.nl '.repeat(n / 14)}${'1 '.repeat(n / 4)}`,
  'numbers and addresses': (n) => '06 12345678 a@b.nl '.repeat(n / 19),
}

t.test('the finder\'s work grows with the text and no faster, for runs of every kind of character: 100 KB costs at most 100 times 1 KB', async (t) => {
  for (const [name, run] of Object.entries(RUNS)) {
    const [small, large] = [run(1_000), run(100_000)]
    const [perCharacterSmall, perCharacterLarge] = [work(small).looked / small.length, work(large).looked / large.length]
    t.ok(perCharacterLarge <= perCharacterSmall * 1.05, `${name}: ${perCharacterLarge.toFixed(2)} looks per character of 100 KB, ${perCharacterSmall.toFixed(2)} of 1 KB`)
    t.ok(perCharacterLarge <= 8, `${name}: at most 8 looks per character`)
    t.ok(perCharacterSmall >= 0.99, `${name}: the whole text is looked at`)
  }
  t.equal(work(RUNS['numbers and addresses']!(100_000)).found, 2 * Math.floor(100_000 / 19), 'every number and address of a long text is found')
})

t.test("the finder's CPU time per character of a 25 KB and a 100 KB run is at most 5 times a 1 KB run's, for runs of every kind of character", async (t) => {
  // What a pattern reads while it backtracks inside one search is not counted above (only where each search began and
  // stopped): issue 52's quadratic pattern counted the same there. Its time per character grew with the text (45 times
  // at 25 KB); the finder's stays under 1.5 times.
  for (const [name, run] of Object.entries(RUNS)) {
    const { ratios, linear } = growth(contactParts, (length, call) => `${run(length)}\u0000${call}`, [1_000, 25_000, 100_000], 5)
    t.ok(linear, `${name}: CPU time per character as a multiple of 1 KB's: ${JSON.stringify(ratios)}`)
  }
})

t.test('an address has at most 64 characters before its @ and 253 after it (RFC 5321), and starts where a run of its characters starts', async (t) => {
  const local = 'a'.repeat(64)
  t.same(links(` ${local}@havenborg.nl`), [{ kind: 'mailto', text: `${local}@havenborg.nl`, href: `mailto:${local}@havenborg.nl` }])
  t.same(links(` a${local}@havenborg.nl`), [], '65 characters before the @: no address, nor its last 64')
  t.same(links(' 100%info@havenborg.nl').map((part) => part.text), ['100%info@havenborg.nl'], 'a % within the local part')
  t.same(links('a@b.nl%c@havenborg.nl').map((part) => part.text), ['a@b.nl'], 'glued to a % before it: no address')
  const domain = `${`${'d'.repeat(62)}.`.repeat(4).slice(0, 250)}.nl`
  t.equal(domain.length, 253)
  t.same(links(`mail x@${domain}.`).map((part) => part.text), [`x@${domain}`])
  t.same(links(`mail x@a${domain}. of y@havenborg.nl`).map((part) => part.text), ['y@havenborg.nl'], '254 characters after the @: no address, and the next is found')
})

t.test('where a number and an address start at once the number wins; the text after a match is searched again', async (t) => {
  t.same(links('0612345678@havenborg.nl'), [{ kind: 'mailto', text: '0612345678@havenborg.nl', href: 'mailto:0612345678@havenborg.nl' }], 'a number glued to an @ is the address\'s local part')
  t.same(
    links('Bel 06 12345678 of 088 - 123 45 99, mail a@b.nl of c@d.nl; Bel 112.').map((part) => part.href),
    ['tel:+31612345678', 'tel:+31881234599', 'mailto:a@b.nl', 'mailto:c@d.nl', 'tel:112'],
  )
  t.same(links('0012345678 a@havenborg.nl').map((part) => part.text), ['a@havenborg.nl'], 'a number that is no Dutch number is passed over, and the address after it found')
  t.same(links('06 12345678  99'), [{ kind: 'tel', text: '06 12345678', href: 'tel:+31612345678' }], 'a number followed by two spaces and more digits')
})

t.test('a number glued to a letter, a digit, a plus, an @, a dot or a hyphen is no number; the separators between groups are', async (t) => {
  for (const glued of ['a', '1', '+', '@', '.', '-', '\u2011', '_']) {
    t.same(links(`${glued}0612345678`), [], `glued after ${JSON.stringify(glued)}`)
    t.same(links(`x ${glued}06 12345678 y`), [], `glued after ${JSON.stringify(glued)}, with a space`)
  }
  for (const written of ['06 12345678', '06\u00a012345678', '06  12345678', '06\u00a0\u00a012345678', '06 - 12345678', '06\u00a0\u2011\u00a012345678', '06 -12345678', '06-12345678', '06\u201112345678', '06- 12345678', '06\u2011\u00a012345678', '06 12 34 56 78', '0612345678']) {
    t.same(contactParts(`Bel ${written} nu`), ['Bel ', { kind: 'tel', text: written, href: 'tel:+31612345678' }, ' nu'], JSON.stringify(written))
  }
  for (const written of ['+31 6 12345678', '+31-6-12345678', '0031 6 12345678', '0031612345678']) {
    t.same(links(` ${written} `), [{ kind: 'tel', text: written, href: 'tel:+31612345678' }], JSON.stringify(written))
  }
  for (const notSeparated of ['06 -- 12345678', '06--12345678', '06 - - 12345678', '06.12345678', '06/12345678', '06   12345678', '06 -  12345678', '06\t12345678']) {
    t.same(links(` ${notSeparated} `), [], `no number: ${JSON.stringify(notSeparated)}`)
  }
})

t.test('E.164 only for a Dutch number written whole; the tel: address of anything else is its digits', async (t) => {
  t.equal(e164('0031 6 12345678'), '+31612345678')
  t.equal(e164('+31 (0)6'), undefined)
  t.equal(e164('088 - 123 45 99'), '+31881234599')
  t.equal(e164('10612345678'), undefined, 'a digit before the leading 0')
  t.equal(e164('1+31612345678'), undefined, 'a digit before the +31')
  t.equal(e164('06 12345678+'), undefined, 'a plus after the digits')
  t.equal(e164('06123456789'), undefined, 'eleven digits')
  t.equal(e164('00612345678'), undefined, 'a national part starting with 0')
  t.equal(e164('+310612345678'), undefined, 'a 0 after +31')
  t.equal(e164('061234567'), undefined, 'nine digits')
  t.equal(telHref('06 12345678'), 'tel:+31612345678')
  t.equal(telHref('0012 345678'), 'tel:0012345678', 'not Dutch: the digits')
  t.equal(telHref('+1 (555) 123-4567'), 'tel:+15551234567', 'not Dutch: the digits and the plus')
})

t.test('a text without a digit or an @ is one plain part, an empty text none', async (t) => {
  t.same(contactParts(''), [])
  t.same(contactParts('Geen nummer hier.'), ['Geen nummer hier.'])
  t.same(contactParts('mail a@b.nl'), ['mail ', { kind: 'mailto', text: 'a@b.nl', href: 'mailto:a@b.nl' }])
  t.same(contactParts('a@'), ['a@'])
  t.same(contactParts('Bel 0612345678'), ['Bel ', { kind: 'tel', text: '0612345678', href: 'tel:+31612345678' }])
})

t.test('texts up to 2,048 characters are remembered, longer ones cut anew each time, with the same parts', async (t) => {
  const text = (length: number) => `Bel 06 12345678 ${'x'.repeat(length - 16)}`
  t.equal(text(2048).length, 2048)
  t.equal(contactParts(text(2048)), contactParts(text(2048)), '2,048 characters: the same parts')
  t.not(contactParts(text(2049)), contactParts(text(2049)), '2,049 characters: cut again')
  t.same(contactParts(text(2049)), contactParts(text(2049)))
  t.same(contactParts(text(2049))[0], 'Bel ')
})

t.test('no empty plain parts: a text that starts or ends with a contact, or contacts side by side', async (t) => {
  const tel = { kind: 'tel', text: '0612345678', href: 'tel:+31612345678' }
  const mail = { kind: 'mailto', text: 'a@b.nl', href: 'mailto:a@b.nl' }
  t.same(contactParts('0612345678'), [tel])
  t.same(contactParts('a@b.nl'), [mail])
  t.same(contactParts('0612345678 a@b.nl'), [tel, ' ', mail])
  t.same(contactParts('a@b.nl,0612345678'), [mail, ',', tel])
  t.same(contactParts('0612345678%a@b.nl'), [tel, '%a@b.nl'])
})

t.test('matches do not overlap: where both start at once the number, else the leftmost, and the other kind is searched again after it', async (t) => {
  t.same(contactParts('0612345678%info@havenborg.nl'), [{ kind: 'tel', text: '0612345678', href: 'tel:+31612345678' }, '%info@havenborg.nl'], 'a number and an address from the same place')
  t.same(contactParts('+31612345678+x@b.nl'), [{ kind: 'tel', text: '+31612345678', href: 'tel:+31612345678' }, '+x@b.nl'])
  t.same(contactParts('06 12345678+x@b.nl'), [{ kind: 'tel', text: '06 12345678', href: 'tel:+31612345678' }, '+x@b.nl'], 'an address starting within a number')
  t.same(contactParts('x%0612345678%y@b.nl'), [{ kind: 'mailto', text: 'x%0612345678%y@b.nl', href: 'mailto:x%0612345678%y@b.nl' }], 'a number within an address')
  t.same(contactParts('x%0612345678%y@b.nl 0201234567'), [{ kind: 'mailto', text: 'x%0612345678%y@b.nl', href: 'mailto:x%0612345678%y@b.nl' }, ' ', { kind: 'tel', text: '0201234567', href: 'tel:+31201234567' }])
})

t.test('in HTML: a text without a digit or an @ as it is; a number\'s link keeps its groups together, an address\'s is as written', async (t) => {
  t.equal(linkContactsInHtmlText('Schade &amp; letsel'), 'Schade &amp; letsel')
  t.equal(linkContactsInHtmlText(''), '')
  t.equal(linkContactsInHtmlText('mail info-schade@havenborg.nl &amp; bel 06 - 12345678'), 'mail <a href="mailto:info-schade@havenborg.nl">info-schade@havenborg.nl</a> &amp; bel <a href="tel:+31612345678">06\u00a0\u2011\u00a012345678</a>')
  t.equal(linkContactsInHtmlText('a@b.nl'), '<a href="mailto:a@b.nl">a@b.nl</a>')
})

t.test('a text without a digit or an @ is read once, by one scan', async (t) => {
  const text = 'Schade melden: vul het formulier in. '.repeat(300)
  let looked = 0
  const { exec } = RegExp.prototype
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    looked += String(input).length - (this.global || this.sticky ? this.lastIndex : 0)
    return exec.call(this, input)
  }
  let parts, html, lookedForParts
  try {
    parts = contactParts(text)
    lookedForParts = looked
    looked = 0
    html = linkContactsInHtmlText(text)
  } finally {
    RegExp.prototype.exec = exec
  }
  t.same(parts, [text])
  t.equal(lookedForParts, text.length, 'cut into parts: one scan')
  t.equal(html, text)
  t.equal(looked, text.length, 'made links in HTML: one scan')
})

t.test('each kind\'s next match is kept until a match taken passes it: many numbers before an address, or addresses before a number, are read once', async (t) => {
  const runs: Record<string, (n: number) => string> = {
    'numbers, then an address': (n) => `${'06 12345678 '.repeat(n / 12)}a@b.nl`,
    'addresses, then a number': (n) => `${'a@b.nl '.repeat(n / 7)}0612345678`,
  }
  for (const [name, run] of Object.entries(runs)) {
    const [small, large] = [run(1_000), run(100_000)]
    const [perCharacterSmall, perCharacterLarge] = [work(small).looked / small.length, work(large).looked / large.length]
    t.ok(perCharacterLarge <= perCharacterSmall * 1.05, `${name}: ${perCharacterLarge.toFixed(2)} looks per character of 100 KB, ${perCharacterSmall.toFixed(2)} of 1 KB`)
    t.ok(perCharacterLarge <= 8, `${name}: at most 8 looks per character`)
  }
  t.equal(work(runs['numbers, then an address']!(100_000)).found, Math.floor(100_000 / 12) + 1)
  t.equal(work(runs['addresses, then a number']!(100_000)).found, Math.floor(100_000 / 7) + 1)
})
