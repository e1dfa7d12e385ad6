/** The front door as deployed, asked from the host (containers-front-door.mjs). */
export interface FrontDoor {
  pages: Record<string, { status: number | string; hsts?: string | string[] }>
  redirects: Record<string, { status: number | string; location?: string | string[] }>
  acme?: number
  tls13?: { protocol?: string | null; cipher?: string; alpn?: string | false | null; error?: string }
  TLSv1?: string
  'TLSv1.1'?: string
  tls12Ciphers: string[]
  problems: string[]
}
export declare function checkFrontDoor(where: { httpPort: number; tlsPort: number; path?: string }): Promise<FrontDoor>
