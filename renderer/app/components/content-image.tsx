import { MODERN_IMAGE, modernSrcset } from '../../../shared/image-sources.ts'
import type { Image } from '../../../shared/content-types.ts'

/**
 * An image from the CMS: its own width, height and alt text, its transforms
 * as srcset, in the modern format first (a `<source>` the browser takes when
 * it can show it) and the CMS's default format as the fallback.
 * `sizes` must say how wide the layout shows the image: from it the browser
 * picks the file, so a narrower `sizes` than the layout gives a blurry image.
 */
export function ContentImage({ image, sizes, lazy, className }: { image: Image; sizes: string; lazy: boolean; className?: string }) {
  const modern = modernSrcset(image)
  const img = (
    <img
      className={className}
      src={image.url}
      srcSet={image.srcset ?? undefined}
      sizes={image.srcset ? sizes : undefined}
      width={image.width ?? undefined}
      height={image.height ?? undefined}
      alt={image.alt ?? ''}
      loading={lazy ? 'lazy' : undefined}
      decoding="async"
    />
  )
  if (!modern) return img
  return (
    <picture>
      <source type={MODERN_IMAGE.type} srcSet={modern} sizes={sizes} />
      {img}
    </picture>
  )
}
