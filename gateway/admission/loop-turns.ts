/**
 * At most `perTurn` misses go on per turn of the event loop; the rest wait
 * for the next turns, in the order they came. A cache hit is answered where
 * its request is parsed (cache/page-cache-hits.ts), in the loop's poll phase;
 * misses whose data arrived together would otherwise all be answered in one
 * run of promise callbacks (a flood's stored 404 pages, each filled, sent
 * through the route's hooks and written), and every hit that came meanwhile
 * waits for all of them. Here a turn's misses go on in the check phase
 * (setImmediate), and the poll phase between two turns answers the hits.
 */
/** Misses of pages answered per turn of the loop: a hit waits for at most this many (about a millisecond each on a quiet core). */
export const MISSES_PER_LOOP_TURN = 4

export class LoopTurns {
  readonly #perTurn: number
  #passed = 0
  #scheduled = false
  readonly #waiting: (() => void)[] = []
  /** The most that went on in one turn, and in all (what a test or a metric can read). */
  readonly seen = { mostInOneTurn: 0, total: 0 }

  constructor(perTurn: number) {
    if (!Number.isInteger(perTurn) || perTurn < 1) throw new RangeError('perTurn must be a positive integer')
    this.#perTurn = perTurn
  }

  /** undefined when the caller may go on at once (no promise, no microtask); else a promise that resolves on its turn. */
  turn(): Promise<void> | undefined {
    if (this.#waiting.length === 0 && this.#passed < this.#perTurn) {
      this.#pass()
      return undefined
    }
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve)
      this.#schedule()
    })
  }

  /** Callers waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length
  }

  #pass(): void {
    this.#passed++
    this.seen.total++
    if (this.#passed > this.seen.mostInOneTurn) this.seen.mostInOneTurn = this.#passed
    this.#schedule()
  }

  /** A new turn begins in the next check phase: the count starts again, and the first waiters go on. */
  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#passed = 0
      while (this.#passed < this.#perTurn && this.#waiting.length > 0) {
        this.#pass()
        this.#waiting.shift()?.()
      }
    })
  }
}
