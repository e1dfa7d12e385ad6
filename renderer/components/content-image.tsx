import type { Image } from '../../shared/content-types.ts'

/** An image from the CMS: its own width, height and alt text, its transforms as srcset. */
export function ContentImage({ image, sizes, lazy, className }: { image: Image; sizes: string; lazy: boolean; className?: string }) {
  return (
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
}
