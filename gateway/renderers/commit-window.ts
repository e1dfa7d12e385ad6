import { PassThrough, type Readable } from 'node:stream'

/**
 * Reads a renderer's answer until it ends or `windowMs` has passed, before a
 * byte reaches the visitor. A renderer that dies within that time fails here,
 * while the render can still go to another renderer; once past it (a slow
 * Suspense boundary) the page streams on and a failure can only cut it short.
 * A page that ended in the window comes back whole, as one buffer; a longer
 * one as a stream of the bytes read so far, then the rest. (A page that
 * came with its length never gets here: render-exchange.ts reads it whole.)
 */
export async function afterCommitWindow(body: Readable, windowMs: number): Promise<Buffer | Readable> {
  const chunks: Buffer[] = []
  const ended = await new Promise<boolean>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk)
    }
    const settle = (): void => {
      clearTimeout(timer)
      body.off('data', onData).off('end', onEnd).off('error', onError)
    }
    const onEnd = (): void => {
      settle()
      resolve(true)
    }
    const onError = (error: Error): void => {
      settle()
      reject(error)
    }
    const timer = setTimeout(() => {
      settle()
      body.pause()
      resolve(false)
    }, windowMs)
    body.on('data', onData).once('end', onEnd).once('error', onError)
  })
  if (ended) return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
  const out = new PassThrough()
  for (const chunk of chunks) out.write(chunk)
  body.once('error', (error) => out.destroy(error))
  out.once('close', () => body.destroy())
  return body.pipe(out)
}
