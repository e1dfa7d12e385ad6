import { SingleContent, singlePage } from './common.tsx'
import type { ScreenProps } from './types.ts'

/** Generic content page: about, legal texts, part of Licent, open application. */
export function PageScreen({ payload }: ScreenProps) {
  const page = singlePage(payload)
  return page ? (
    <article>
      <SingleContent page={page} />
    </article>
  ) : null
}
