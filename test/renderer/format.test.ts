import t from 'tap'
import { formatDate, formatSalary } from '../../renderer/app/components/format.ts'

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

t.test("salaries read as Intl's nl-NL euro format writes them, without making a NumberFormat in the browser", async (t) => {
  const euro = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 })
  const amounts = [0, 0.4, 0.5, 1.5, 2.5, 5, 999, 999.5, 1000, 1234.49, 2499.5, 3200, 12_345, 100_000, 1_234_567, 98_765_432.5, -3200, -0.4, -0]
  for (let amount = 0; amount < 200_000; amount += 997.25) amounts.push(amount)
  const differing = amounts.map((amount) => [amount, formatSalary(amount, null), `${euro.format(amount)} bruto per maand`]).filter(([, ours, intl]) => ours !== intl)
  t.same(differing.slice(0, 5), [], `${amounts.length} amounts, none written otherwise`)
  t.equal(formatSalary(3200, 4100), '€\u00a03.200 – €\u00a04.100 bruto per maand')
  t.equal(formatSalary(null, 2800), '€\u00a02.800 bruto per maand')
  t.equal(formatSalary(null, null), undefined)
})
