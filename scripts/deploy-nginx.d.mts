/** deploy/nginx.conf on a loopback port in front of a given gateway (deploy-nginx.mjs). */
export declare const NGINX: string
export declare const SHIPPED_NGINX_CONF: string
export declare function loopbackNginxConf(shipped: string, where: { dir: string; port: number; gatewayUrl?: string }): string
export interface DeployNginx {
  url: string
  port: number
  dir: string
  config: string
  errorLog(): string
  close(): Promise<void>
}
export declare function startDeployNginx(options?: { gatewayUrl?: string; edit?: (config: string) => string }): Promise<DeployNginx>
