import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { type Socket, connect } from 'node:net'

const OPCODE = { text: 0x1, close: 0x8, ping: 0x9, pong: 0xa } as const

export interface RawWebSocket {
  /** The status of the answer to the upgrade request (101 when upgraded). */
  status: number
  /** Text frames received, in order. */
  texts: string[]
  /** Pings received. */
  pings: number
  /** The code of the server's close frame, once one came. */
  closeCode: number | undefined
  /** Whether the TCP connection has closed. */
  ended: boolean
  sendText(text: string): void
  /** Resolves once `condition` holds, checked after every frame and at the end of the connection. */
  until(condition: (socket: RawWebSocket) => boolean): Promise<void>
  destroy(): void
}

/** A client frame: masked, as RFC 6455 requires; payloads under 64 KiB. */
function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4)
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff])
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] ?? 0)))
  return Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked])
}

/**
 * A WebSocket client on a bare TCP socket, for what a browser's would never
 * do: stay silent, or leave the server's pings unanswered (`answerPings:
 * false`). It never answers a close frame either, so the server has to end
 * the connection itself. `localAddress` picks the client's loopback address.
 * Whatever the answer, the connection stays until the server or `destroy` ends it.
 */
export function openRawWebSocket(
  base: string,
  path: string,
  { protocol = 'graphql-transport-ws', answerPings = true, localAddress }: { protocol?: string; answerPings?: boolean; localAddress?: string } = {},
): Promise<RawWebSocket> {
  const { hostname, port } = new URL(base)
  const changes = new EventEmitter()
  let socket: Socket
  let buffered = Buffer.alloc(0)
  let head = true
  const client: RawWebSocket = {
    status: 0,
    texts: [],
    pings: 0,
    closeCode: undefined,
    ended: false,
    sendText: (text) => socket.write(frame(OPCODE.text, Buffer.from(text))),
    until: (condition) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!condition(client)) return
          changes.off('change', check)
          resolve()
        }
        changes.on('change', check)
        check()
      }),
    destroy: () => socket.destroy(),
  }
  const readFrames = (): void => {
    while (buffered.length >= 2) {
      const opcode = (buffered[0] ?? 0) & 0x0f
      let length = (buffered[1] ?? 0) & 0x7f
      let offset = 2
      if (length === 126) {
        if (buffered.length < 4) return
        length = buffered.readUInt16BE(2)
        offset = 4
      } else if (length === 127) {
        if (buffered.length < 10) return
        length = Number(buffered.readBigUInt64BE(2))
        offset = 10
      }
      if (buffered.length < offset + length) return
      const payload = buffered.subarray(offset, offset + length)
      buffered = buffered.subarray(offset + length)
      if (opcode === OPCODE.text) client.texts.push(payload.toString('utf8'))
      else if (opcode === OPCODE.ping) {
        client.pings++
        if (answerPings) socket.write(frame(OPCODE.pong, payload))
      } else if (opcode === OPCODE.close) client.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
      changes.emit('change')
    }
  }
  return new Promise((resolve, reject) => {
    socket = connect({ host: hostname, port: Number(port), localAddress })
    socket.on('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          (protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : '') +
          '\r\n',
      ),
    )
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (head) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end < 0) return
        client.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0)
        buffered = buffered.subarray(end + 4)
        head = false
        resolve(client)
      }
      if (client.status === 101) readFrames()
    })
    socket.on('error', reject)
    socket.on('close', () => {
      client.ended = true
      if (head) reject(new Error('closed before an answer'))
      changes.emit('change')
    })
  })
}
