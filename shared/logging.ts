import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { LogController } from 'fastify'
import { PREVIEW_TOKEN_QUERY_PARAM, REQUEST_ID_HEADER } from './constants.ts'
import { type LogLevel, REQUEST_ID_PATTERN } from './env.ts'

/** Tokens never reach a log line: cut from URLs, and their headers redacted. */
export function redactUrl(url: string): string {
  return url.replace(new RegExp(`([?&]${PREVIEW_TOKEN_QUERY_PARAM}=)[^&#]*`, 'g'), '$1[Redacted]')
}

export const LOG_REDACT_PATHS = [
  'req.headers["x-craft-token"]',
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'headers["x-craft-token"]',
  'headers.authorization',
  'headers.cookie',
]

/** The request id of a request: a valid incoming x-request-id, or a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER]
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID()
}

/** Fastify options both services log with: pino JSON, redacted, one request id label. */
export function loggingOptions(level: LogLevel, stream?: NodeJS.WritableStream) {
  return {
    logger: {
      level,
      redact: { paths: LOG_REDACT_PATHS, censor: '[Redacted]' },
      serializers: {
        req: (request: { method: string; url: string }) => ({ method: request.method, url: redactUrl(request.url) }),
      },
      ...(stream ? { stream } : {}),
    },
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
  }
}
