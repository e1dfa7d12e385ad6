import type { Readable } from 'node:stream'

/** The `data:` fields of a text/event-stream body, one event at a time. */
export function eventData(body: Readable): { next(): Promise<string>; drain(): Promise<void> } {
  const chunks = body.setEncoding('utf8')[Symbol.asyncIterator]()
  let received = ''
  return {
    async next() {
      for (;;) {
        const data = /data: (.*)\n\n/.exec(received)
        if (data) {
          received = received.slice((data.index ?? 0) + data[0].length)
          return data[1] ?? ''
        }
        const chunk = await chunks.next()
        if (chunk.done) throw new Error('the stream ended')
        received += String(chunk.value)
      }
    },
    async drain() {
      while (!(await chunks.next()).done);
    },
  }
}
