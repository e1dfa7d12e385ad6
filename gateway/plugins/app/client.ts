import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { clientKey } from '../../http/client-key.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who a per-client budget charges: the client's IPv4 address, or its IPv6 prefix (CLIENT_IPV6_PREFIX bits). */
    readonly client: string
  }
}

/** One name for one client, for every per-client limit: request.ip as TRUST_PROXY finds it, an IPv6 address cut to its prefix. */
async function client(app: FastifyInstance): Promise<void> {
  const bits = app.config.clientIpv6PrefixBits
  app.decorateRequest('client', {
    getter(this: { ip: string }) {
      return clientKey(this.ip, bits)
    },
  })
}

export default fp(client, { name: 'client', dependencies: ['config'] })
