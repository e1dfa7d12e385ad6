import t from 'tap'
import { type ScanMeter, contactParts } from '../../shared/contact-links.ts'

const links = (text: string) => contactParts(text).filter((part) => typeof part !== 'string')

/** Characters the finder looked at for a text, and what it found there. */
function work(text: string): { looked: number; found: number } {
  const meter: ScanMeter = { looked: 0 }
  const found = contactParts(text, meter).filter((part) => typeof part !== 'string').length
  return { looked: meter.looked, found }
}

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
    t.ok(perCharacterLarge <= 4, `${name}: at most 4 looks per character`)
    t.ok(perCharacterSmall >= 0.99, `${name}: the whole text is looked at`)
  }
  t.equal(work(RUNS['numbers and addresses']!(100_000)).found, 2 * Math.floor(100_000 / 19), 'every number and address of a long text is found')
})

t.test('an address has at most 64 characters before its @ and 253 after it (RFC 5321)', async (t) => {
  const local = 'a'.repeat(64)
  t.same(links(` ${local}@havenborg.nl`), [{ kind: 'mailto', text: `${local}@havenborg.nl`, href: `mailto:${local}@havenborg.nl` }])
  t.same(links(` a${local}@havenborg.nl`), [], '65 characters before the @: no address')
  t.same(links(` 100%${local}@havenborg.nl`).map((part) => part.text), [`${local}@havenborg.nl`], 'after a %, as before: the address after it')
  const domain = `${'d'.repeat(62)}.`.repeat(4).slice(0, 250) + '.nl'
  t.equal(domain.length, 253)
  t.same(links(`mail x@${domain}.`).map((part) => part.text), [`x@${domain}`])
  t.same(links(`mail x@a${domain}.`), [], '254 characters after the @: no address')
})

t.test('where a number and an address start at once the number wins, as it is tried first; the text after a match is searched again', async (t) => {
  t.same(links('0612345678@havenborg.nl'), [{ kind: 'mailto', text: '0612345678@havenborg.nl', href: 'mailto:0612345678@havenborg.nl' }], 'a number glued to an @ is the address\'s local part')
  t.same(links('bel 112%x@havenborg.nl').map((part) => part.kind), ['mailto'], 'an address before 112 at the same place')
  t.same(
    links('Bel 06 12345678 of 088 - 123 45 99, mail a@b.nl of c@d.nl; Bel 112.').map((part) => part.href),
    ['tel:+31612345678', 'tel:+31881234599', 'mailto:a@b.nl', 'mailto:c@d.nl', 'tel:112'],
  )
  t.same(links('0012345678%a@havenborg.nl').map((part) => part.text), ['a@havenborg.nl'], 'a number that is no Dutch number is passed over, and the address after its %')
  t.same(links('06 12345678  99'), [{ kind: 'tel', text: '06 12345678', href: 'tel:+31612345678' }], 'a number followed by two spaces and more digits')
})
