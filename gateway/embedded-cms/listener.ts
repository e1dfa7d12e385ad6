import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { EMBEDDED_CMS_PATH } from '../../shared/constants.ts'
import { type RequestLogController, requestIdOf } from '../../shared/logging.ts'
import { type EmbeddedCmsOptions, embeddedCms } from './plugin.ts'

const LOOPBACK_HOST = '127.0.0.1'

export interface EmbeddedCmsListener {
  /** The content API's address once the gateway is ready; undefined before. */
  readonly url: URL | undefined
}

/**
 * The embedded content API on a listener of its own, on loopback: the
 * gateway's Craft client reaches it over HTTP as it would a real Craft, and
 * nothing public routes to it. (On the gateway's public port a check of the
 * peer's address would see only the load balancer.) It listens when the
 * gateway is ready, so before Craft's schema is asked for, and closes with it.
 */
export async function startEmbeddedCmsListener(gateway: FastifyInstance, options: EmbeddedCmsOptions & { port: number; logController: RequestLogController }): Promise<EmbeddedCmsListener> {
  const { port, logController, ...cmsOptions } = options
  const cms = Fastify({
    loggerInstance: gateway.log.child({ listener: 'embedded-cms' }),
    genReqId: requestIdOf,
    logController,
  })
  await cms.register(embeddedCms, cmsOptions)
  let url: URL | undefined
  gateway.addHook('onReady', async () => {
    await cms.listen({ host: LOOPBACK_HOST, port })
    url = new URL(`http://${LOOPBACK_HOST}:${(cms.server.address() as AddressInfo).port}${EMBEDDED_CMS_PATH}`)
  })
  gateway.addHook('onClose', async () => cms.close())
  return {
    get url() {
      return url
    },
  }
}
