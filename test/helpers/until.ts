/** How long a test waits for a state before it fails: a bound for a broken feature, never a wait of its own. */
export const GIVE_UP_MS = 20_000

/**
 * Resolves once `reached` holds, looked at on every turn of the event loop:
 * for a state that no event announces. Fails, saying what never happened, when
 * it does not within GIVE_UP_MS.
 */
export async function until(reached: () => boolean, what: string | (() => string)): Promise<void> {
  const giveUp = AbortSignal.timeout(GIVE_UP_MS)
  while (!reached()) {
    if (giveUp.aborted) throw new Error(`never happened: ${typeof what === 'string' ? what : what()}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}
