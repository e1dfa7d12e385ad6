/**
 * The tags of the payloads a renderer fetched for one page request, by the
 * request id it passes on, so that the page carries the tags of the data it
 * was rendered from. Entries nobody takes (pages that are not stored) age out.
 */
export class RenderTags {
  private readonly byRequest = new Map<string, { tags: Set<string>; at: number }>()

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxRequests = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  record(requestId: string, tags: readonly string[]): void {
    const now = this.now()
    for (const [id, entry] of this.byRequest) {
      if (this.byRequest.size < this.maxRequests && now - entry.at < this.maxAgeMs) break
      this.byRequest.delete(id)
    }
    let entry = this.byRequest.get(requestId)
    if (!entry) this.byRequest.set(requestId, (entry = { tags: new Set(), at: now }))
    for (const tag of tags) entry.tags.add(tag)
  }

  peek(requestId: string): string[] {
    return [...(this.byRequest.get(requestId)?.tags ?? [])]
  }

  take(requestId: string): string[] {
    const tags = this.peek(requestId)
    this.byRequest.delete(requestId)
    return tags
  }
}
