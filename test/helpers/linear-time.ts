/**
 * Whether a function's cost grows with its text no faster than the text:
 * for a pattern that may backtrack, what it reads inside one search cannot
 * be counted from outside, so this compares the process's own CPU time per
 * character of a long text with a short one's, measured one after the
 * other in the same process (a busy machine slows both, not their ratio).
 * A cost that grows with the square of the text is 25 times the short
 * text's per character at 25 times its length, and 100 times at 100.
 */

/** How much CPU time a measurement runs for at least, so that the clock's grain and one interruption are small beside it. */
const MEASURED_CPU_US = 20_000
/** Rounds of measurements at most: the least of each size counts, as a busy machine only ever adds to a measurement. */
const ROUNDS = 3

/** The process's CPU time, in microseconds. */
const cpuNow = (): number => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/**
 * CPU microseconds per character of `fn` on texts of `length` characters,
 * each call on a text of its own (`text(length, call)`): a function that
 * remembers its answers is measured on the work, not on its memory.
 */
function cpuPerCharacter(fn: (text: string) => unknown, text: (length: number, call: number) => string, length: number): number {
  let spent = 0
  let calls = 0
  let batch = 1
  while (spent < MEASURED_CPU_US) {
    const texts = Array.from({ length: batch }, (_, index) => text(length, calls + index))
    const started = cpuNow()
    for (const each of texts) fn(each)
    spent += cpuNow() - started
    calls += batch
    batch = Math.min(batch * 2, 1_000)
  }
  return spent / (calls * length)
}

export interface Growth {
  /** Each longer length's CPU time per character, as a multiple of the shortest one's (the least of the rounds). */
  ratios: Record<number, number>
  /** True when every ratio is at most `bound`. */
  linear: boolean
}

/**
 * Per-character CPU time of `fn` at each of `lengths` (shortest first), as
 * multiples of the first one's; `linear` when none is over `bound`. A
 * length whose ratio is over the bound in a round stops that round (a
 * quadratic cost at the longest length would take minutes), and is
 * measured again in the next one; the least of each size counts.
 */
export function growth(fn: (text: string) => unknown, text: (length: number, call: number) => string, lengths: readonly number[], bound: number): Growth {
  // Warm: the patterns compiled and the functions optimised before anything is measured.
  for (let call = 0; call < 20; call++) fn(text(lengths[0] as number, -1 - call))
  const least = new Map<number, number>()
  const ratios: Record<number, number> = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const length of lengths) {
      const perCharacter = Math.min(least.get(length) ?? Infinity, cpuPerCharacter(fn, text, length))
      least.set(length, perCharacter)
      ratios[length] = perCharacter / (least.get(lengths[0] as number) as number)
      if (ratios[length] > bound) break
    }
    if (lengths.every((length) => ratios[length] !== undefined && ratios[length] <= bound)) return { ratios, linear: true }
  }
  return { ratios, linear: false }
}
