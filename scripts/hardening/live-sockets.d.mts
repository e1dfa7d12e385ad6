/** What one client can hold open on /cms/live (live-sockets.mjs). */
export interface LiveSocketsMeasurement {
  attempted: number
  answers: Record<string, number>
  upgraded: number
  openWhenVisitorsAsked: number
  openingMs: number
  visitorPages: Record<string, number>
  visitorPagesOk: number
  visitorsAsked: number
  watchedMs: number
  closedByServer: number
  stillOpenAfterWatch: number
  heldMs: { min: number | null; median: number | null; max: number | null }
  gatewayRssMiB?: { before: number | undefined; holding: number | undefined }
}
export declare function measureLiveSockets(options: {
  base: string
  sockets?: number
  batch?: number
  visitors?: number
  holdMs?: number
  gatewayPid?: number
}): Promise<LiveSocketsMeasurement>
