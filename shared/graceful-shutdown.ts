import { SHUTDOWN_DEADLINE_MS } from './constants.ts'

/** Closes a server on SIGTERM/SIGINT: stop accepting, finish what is in flight, exit within the deadline. */
export function closeOnSignals(close: () => Promise<void>, log: (message: string) => void, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let closing = false
  const stop = (signal: string): void => {
    if (closing) return
    closing = true
    log(`${signal} received, closing`)
    const timer = setTimeout(() => {
      log('still busy at the deadline, exiting')
      process.exit(1)
    }, deadlineMs)
    timer.unref()
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
}
