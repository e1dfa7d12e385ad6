import { type Env, readSettings, type SettingValues } from '../shared/env.ts'
import { checkRequestTimeouts } from './settings/admission.ts'
import { checkDevReloadFile } from './settings/development.ts'
import { GATEWAY_SETTINGS } from './settings/index.ts'

/** The project's folder: the defaults of path settings (`dist`, `public`) are relative to it, from the sources and from the bundle in dist/ alike. */
const ROOT = new URL('..', import.meta.url)

type Tables = (typeof GATEWAY_SETTINGS)[number]['table']
type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never

/** What the gateway's settings tables read (gateway/settings/), and what follows from them. */
export type GatewayConfig = SettingValues<UnionToIntersection<Tables>> & {
  /**
   * Where pages may load images from besides the site itself (img-src): the
   * origin of CRAFT_API_URL and ASSET_ORIGINS, or with the embedded content
   * API the origin of EMBEDDED_ASSET_URL.
   */
  imageSources: string[]
  /** The embedded content's asset volume, served under /cms-assets/ when the embedded API is on. */
  embeddedAssetDir: string
}

function imageSourcesOf(config: { craftApiUrl: URL | undefined; embeddedAssetUrl: string; assetOrigins: string[] }): string[] {
  const cms = config.craftApiUrl ? config.craftApiUrl.origin : new URL(config.embeddedAssetUrl).origin
  return [...new Set([cms, ...config.assetOrigins])]
}

/** Reads and checks every setting of the gateway; a bad value throws a ConfigError naming it. */
export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  let values = {}
  for (const { table } of GATEWAY_SETTINGS) values = { ...values, ...readSettings(env, table, ROOT) }
  const config = values as SettingValues<UnionToIntersection<Tables>>
  checkRequestTimeouts(config)
  checkDevReloadFile(env, config)
  return { ...config, imageSources: imageSourcesOf(config), embeddedAssetDir: new URL('gateway/embedded-cms/assets', ROOT).pathname }
}
