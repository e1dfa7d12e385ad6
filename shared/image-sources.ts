import { IMAGE_WIDTHS } from './constants.ts'

/**
 * The modern format the site asks Craft's transforms for, offered to browsers
 * in a `<picture>` ahead of the srcset in the CMS's default format. Craft's
 * `srcset` has no transform arguments of its own, so the document asks `url`
 * once per width, each with the format: `webp480: url(width: 480, format: "webp")`.
 */
export const MODERN_IMAGE = { format: 'webp', type: 'image/webp' } as const

export type ImageWidth = (typeof IMAGE_WIDTHS)[number]

/** `webp480`: the alias of one width's transform in the modern format. */
export type ModernImageAlias = `${typeof MODERN_IMAGE.format}${ImageWidth}`

const aliasOf = (width: ImageWidth): ModernImageAlias => `${MODERN_IMAGE.format}${width}`

/** The selections of the modern format's transforms, for the document's image fragment. */
export const MODERN_IMAGE_SELECTIONS = IMAGE_WIDTHS.map((width) => `${aliasOf(width)}: url(width: ${width}, format: "${MODERN_IMAGE.format}")`).join(' ')

/** An asset with those transforms, as the document returns it. */
export type ModernImageUrls = Partial<Record<ModernImageAlias, string | null>>

/**
 * The modern format's srcset: a candidate per width with a URL of its own.
 * Null when the CMS has no such transforms (it gave the original file for
 * every width, as Craft does for a file it cannot transform, an SVG say).
 */
export function modernSrcset(image: ModernImageUrls & { url: string }): string | null {
  const candidates = IMAGE_WIDTHS.flatMap((width) => {
    const url = image[aliasOf(width)]
    return url && url !== image.url ? [`${url} ${width}w`] : []
  })
  return candidates.length > 0 ? candidates.join(', ') : null
}
