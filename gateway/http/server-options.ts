import type { FastifyHttpOptions } from 'fastify'
import type { Server } from 'node:http'
import type { loggingOptions } from '../../shared/logging.ts'
import { type FastPath, serverWithPageCacheHits } from '../cache/page-cache-hits.ts'
import type { GatewayConfig } from '../config.ts'
import { clientErrorHandler, frameworkErrorHandler } from './error-answers.ts'
import { MAX_REQUEST_HEAD_BYTES, oversizedStatus } from './request-size.ts'
import { cutStalledSends } from './send-timeout.ts'
import { trustFunction } from './trust-proxy.ts'

/**
 * The fast path answers only requests of a size the gateway reads: a target
 * too long or headers too large go to Fastify, whose first hook refuses them
 * (error-answers.ts). The page cache fills the slot later, so it is read at
 * each request.
 */
const withinLimits = (fastPath: FastPath): FastPath => ({
  answer: (request, response) => oversizedStatus(request) === undefined && fastPath.answer(request, response),
})

/**
 * Fastify's options for the gateway: its server offers each request to the
 * page-cache fast path first; limits and timeouts from the configuration;
 * errors raised before routing in the gateway's own shapes and headers.
 */
export function gatewayServerOptions(config: GatewayConfig, logging: ReturnType<typeof loggingOptions>, fastPath: FastPath): FastifyHttpOptions<Server> {
  return {
    serverFactory: (handler, serverOptions) => {
      const server = serverWithPageCacheHits(handler, { ...serverOptions, maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, withinLimits(fastPath), config.headersTimeoutMs)
      cutStalledSends(server, config.sendTimeoutMs)
      return server
    },
    ...logging,
    bodyLimit: config.maxBodyBytes,
    routerOptions: { maxParamLength: 1024 },
    // One rule for Fastify's request.ip and .protocol and for the page-cache fast path (plugins/app/page-cache.ts).
    trustProxy: trustFunction(config.trustProxy),
    return503OnClosing: true,
    requestTimeout: config.requestTimeoutMs,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  }
}
