import type { FastifyHttpOptions } from 'fastify'
import type { Server } from 'node:http'
import type { loggingOptions } from '../../shared/logging.ts'
import { type FastPath, serverWithPageCacheHits } from '../cache/page-cache-hits.ts'
import type { GatewayConfig } from '../config.ts'
import { clientErrorHandler, frameworkErrorHandler } from './error-answers.ts'
import { trustFunction } from './trust-proxy.ts'

/**
 * Fastify's options for the gateway: its server offers each request to the
 * page-cache fast path first; limits and timeouts from the configuration;
 * errors raised before routing in the gateway's own shapes and headers.
 */
export function gatewayServerOptions(config: GatewayConfig, logging: ReturnType<typeof loggingOptions>, fastPath: FastPath): FastifyHttpOptions<Server> {
  return {
    serverFactory: (handler, serverOptions) => serverWithPageCacheHits(handler, serverOptions, fastPath, config.headersTimeoutMs),
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
