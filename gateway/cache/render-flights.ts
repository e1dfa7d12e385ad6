import { EventEmitter } from 'node:events'

/**
 * How the render others waited on ended, as far as they care:
 * - `over`: its answer is done; the page is stored, or is not one that is
 *   (another status, a degraded or too large page): the waiters look in the
 *   cache once more and render themselves on a miss, all at once, since
 *   waiting for each other's renders of a page that is not stored would
 *   only line them up;
 * - `again`: cut short for a reason that is not the page's (its visitor left
 *   mid-stream, a purge came while it rendered): the waiters may wait for a
 *   new render, one of them leading it;
 * - `failed`: no renderer could render it, or it rendered a 5xx: the waiters
 *   share the failure (a stale page, else the 503 page) instead of each
 *   trying every renderer again.
 */
export type FlightOutcome = { kind: 'over' } | { kind: 'again' } | { kind: 'failed'; error: unknown }

/** What a waiter learns: the outcome, or that it waited as long as it may. */
export type WaitOutcome = FlightOutcome | { kind: 'timeout' }

/** The render of a key under way; settled once, by its leader. */
export interface FlightLead {
  settle(outcome: FlightOutcome): void
  readonly settled: boolean
}

interface Flight {
  done: Promise<FlightOutcome>
  waiting: number
}

export interface RenderFlightEvents {
  /** A request renders a key that others may wait on. */
  led: [key: string]
  /** A request waits for another's render of the key (`waiting` of them now). */
  waiting: [key: string, waiting: number]
  /** The render of a key ended so. */
  settled: [key: string, outcome: FlightOutcome['kind']]
  /** A waiter waited its whole bound. */
  timedOut: [key: string]
  /** A waiter's wait is over, so. */
  waited: [key: string, outcome: WaitOutcome['kind']]
}

/**
 * One render per page key at a time in this gateway: the first miss leads
 * and renders, the misses that come meanwhile wait for its outcome (at most
 * a bound each) instead of each rendering the same page. The query cache's
 * flights share an answer; a page's answer is streamed to one visitor, so
 * the waiters are told how it ended and read the stored page.
 */
export class RenderFlights extends EventEmitter<RenderFlightEvents> {
  private readonly flights = new Map<string, Flight>()

  /** Requests waiting on the render of a key now (0: none, or no render under way); tests wait on the events instead of time. */
  waitingOn(key: string): number {
    return this.flights.get(key)?.waiting ?? 0
  }

  /** Renders under way that others may wait on. */
  get size(): number {
    return this.flights.size
  }

  /** The caller renders the key, unless a render of it is under way already (undefined: wait for that one). */
  lead(key: string): FlightLead | undefined {
    if (this.flights.has(key)) return undefined
    let resolve!: (outcome: FlightOutcome) => void
    const flight: Flight = { done: new Promise((settle) => (resolve = settle)), waiting: 0 }
    this.flights.set(key, flight)
    let settled = false
    this.emit('led', key)
    return {
      settle: (outcome) => {
        if (settled) return
        settled = true
        if (this.flights.get(key) === flight) this.flights.delete(key)
        resolve(outcome)
        this.emit('settled', key, outcome.kind)
      },
      get settled() {
        return settled
      },
    }
  }

  /** Waits at most `ms` for the render of the key under way; undefined when there is none. */
  wait(key: string, ms: number): Promise<WaitOutcome> | undefined {
    const flight = this.flights.get(key)
    if (!flight) return undefined
    flight.waiting++
    this.emit('waiting', key, flight.waiting)
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<WaitOutcome>((resolve) => {
      timer = setTimeout(() => {
        this.emit('timedOut', key)
        resolve({ kind: 'timeout' })
      }, Math.max(0, ms))
    })
    return Promise.race([flight.done, timedOut]).then((outcome) => {
      clearTimeout(timer)
      flight.waiting--
      this.emit('waited', key, outcome.kind)
      return outcome
    })
  }
}
