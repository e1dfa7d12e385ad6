/** The shipped front doors of deploy/ on loopback ports in front of a given gateway (deploy-nginx.mjs). */
export type NginxVariant = 'tls' | 'behind-lb'
export declare const NGINX: string
export declare const DEPLOY_DIR: string
export declare const SHIPPED_NGINX_CONF: string
export declare const BEHIND_LB_NGINX_CONF: string
export declare const BEHIND_LB_START: string
export declare const TLS_FILES: { certificate: string; key: string }
export interface TlsFiles {
  certificate: string
  key: string
}
export declare function shippedNginxConf(variant?: NginxVariant): string
export declare function loopbackNginxConf(shipped: string, where: { dir: string; port: number; tlsPort?: number; gatewayUrl?: string; tls?: TlsFiles }): string
export interface DeployNginx {
  url: string
  port: number
  /** The port of 443's server (the variant 'tls'). */
  tlsPort: number | undefined
  dir: string
  config: string
  output(): string
  errorLog(): string
  close(): Promise<void>
}
export declare function startDeployNginx(options?: { variant?: NginxVariant; gatewayUrl?: string; tls?: TlsFiles; trusted?: string; edit?: (config: string) => string }): Promise<DeployNginx>
