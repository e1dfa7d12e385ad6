import t from 'tap'
import { contactParts } from '../../shared/contact-links.ts'

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
