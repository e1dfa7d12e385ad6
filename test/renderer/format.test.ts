import t from 'tap'
import { formatDate } from '../../renderer/components/format.ts'

const intl = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Amsterdam' })
const HOUR_MS = 3_600_000

t.test('dates read as Intl writes them for nl-NL in Europe/Amsterdam, around every clock change too', async (t) => {
  const differing: string[] = []
  let checked = 0
  // Every 7 hours from 1990 to 2040: each hour of the day and each weekday comes by, in every season.
  for (let time = Date.UTC(1990, 0, 1); time < Date.UTC(2040, 0, 1); time += 7 * HOUR_MS) {
    const iso = new Date(time).toISOString()
    checked++
    if (formatDate(iso) !== intl.format(new Date(time))) differing.push(`${iso}: ${formatDate(iso)}, Intl ${intl.format(new Date(time))}`)
  }
  // The hours either side of midnight on the days the clocks change, when the date depends on the offset.
  for (let year = 1996; year < 2040; year++) {
    for (const month of [2, 9]) {
      const lastDay = new Date(Date.UTC(year, month + 1, 0))
      const sunday = Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay())
      for (let hour = -26; hour <= 26; hour++) {
        const iso = new Date(sunday + hour * HOUR_MS).toISOString()
        checked++
        if (formatDate(iso) !== intl.format(new Date(iso))) differing.push(`${iso}: ${formatDate(iso)}, Intl ${intl.format(new Date(iso))}`)
      }
    }
  }
  t.same(differing.slice(0, 5), [], `${checked} moments, none formatted otherwise`)
  t.equal(formatDate('2025-03-14T10:00:00+01:00'), '14 maart 2025')
  t.equal(formatDate('2024-12-31T23:30:00Z'), '1 januari 2025', 'a late evening in UTC is the next day in the Netherlands')
  t.equal(formatDate(null), '')
  t.equal(formatDate('geen datum'), '')
})
