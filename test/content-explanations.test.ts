import t from 'tap'
import { CHANNELS } from '../shared/sections.ts'
import { shippedContent } from './helpers/content.ts'

/**
 * Issue 49, finding 7: the shipped content explains what it assumes. Words
 * of the trade are explained in the entry that uses them, and the
 * car-damage advice names the digital Europees schadeformulier and where a
 * paper one comes from.
 */
const store = shippedContent()
const textOf = (fields: Record<string, unknown>): string =>
  Object.values(fields)
    .filter((value): value is string => typeof value === 'string')
    .join(' ')
    .replace(/<[^>]+>/g, ' ')

/** A term and the sentence that must explain it wherever an entry uses it. */
const TERMS: [term: RegExp, explained: RegExp][] = [
  [/inboedelwaardemeter/i, /De inboedelwaardemeter is /],
  [/verzekerde som/i, /verzekerde som (is|\(het)/],
]

t.test('an insurance that uses a term of the trade explains it', async (t) => {
  const insurances = store.findEntries({ section: [CHANNELS.insurances.section] }, undefined)
  let uses = 0
  for (const entry of insurances) {
    const text = textOf(entry.fields)
    for (const [term, explained] of TERMS) {
      if (!term.test(text)) continue
      uses++
      t.match(text, explained, `${entry.slug}: explains ${term.source}`)
    }
  }
  t.ok(uses >= 3, `the terms are used (${uses} times)`)
})

t.test('the car-damage advice names the digital form and where a paper one comes from', async (t) => {
  const [damage] = store.findEntries({ section: [CHANNELS.services.section], slug: ['schade-melden'] }, undefined)
  const text = textOf(damage?.fields ?? {})
  t.match(text, /app Europees Schadeformulier/)
  t.match(text, /papier/)
  t.match(text, /sturen u er graag een toe/)
})
