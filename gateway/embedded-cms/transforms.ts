import { type GraphQLResolveInfo, getDirectiveValues } from 'graphql'
import type { StoredAsset } from './content-store.ts'

/**
 * Craft's image transforms, as far as the embedded volume holds them: a file
 * per width in each of these formats, made beforehand by
 * scripts/dev/raster-illustrations.mjs (a real Craft makes them on request).
 * The first is what a transform without `format` gives.
 */
export const EMBEDDED_TRANSFORM_FORMATS = ['png', 'webp'] as const

/** The arguments of Craft's `@transform` directive, which `url`, `width` and `height` take as well. */
export interface TransformArgs {
  handle?: string | null
  transform?: string | null
  width?: number | null
  height?: number | null
  mode?: string | null
  position?: string | null
  interlace?: string | null
  quality?: number | null
  format?: string | null
  immediately?: boolean | null
}

/** Those arguments in SDL, as Craft's generated reference lists them. */
export const TRANSFORM_ARGS_SDL =
  'handle: String, transform: String, width: Int, height: Int, mode: String, position: String, interlace: String, quality: Int, format: String, immediately: Boolean'

/** The directive's name in the schema: `url @transform(width: 800, format: "webp")`. */
export const TRANSFORM_DIRECTIVE = 'transform'

/** `nieuws-premies.svg`, 800, `webp` -> `nieuws-premies-800.webp`: how the volume names a transform's file. */
export function transformFileName(original: string, width: number, format: string): string {
  return `${original.replace(/\.[^./]+$/, '')}-${width}.${format}`
}

/** An asset seen through the transform a `@transform` on its assets field gave it, as Craft's `Asset::setTransform`. */
export type TransformedAsset = StoredAsset & { appliedTransform?: TransformArgs }

export function withTransform(asset: StoredAsset, transform: TransformArgs): TransformedAsset {
  return { ...asset, appliedTransform: transform }
}

/** Craft treats an argument list without any of these as no transform: `url` is the original file. */
function isTransform(args: TransformArgs | null | undefined): args is TransformArgs {
  return Boolean(args && (args.width || args.height || args.format || args.handle || args.transform || args.mode || args.quality))
}

/** Craft spells JPEG both ways; the volume's files end in `jpg`. */
const formatOf = (format: string | null | undefined): string | undefined => (format ? format.toLowerCase().replace(/^jpeg$/, 'jpg') : undefined)

/** Width and height of the transform's result: one side given scales the other, both with `fit` keep the ratio inside that box. */
export function transformedSize(asset: StoredAsset, transform: TransformArgs | undefined): { width: number | null; height: number | null } {
  const own = { width: asset.width, height: asset.height }
  if (!isTransform(transform) || !own.width || !own.height) return own
  const { width, height } = transform
  if (width && height) {
    if (transform.mode !== 'fit') return { width, height }
    const scale = Math.min(width / own.width, height / own.height)
    return { width: Math.round(own.width * scale), height: Math.round(own.height * scale) }
  }
  if (width) return { width, height: Math.round((width * own.height) / own.width) }
  if (height) return { width: Math.round((height * own.width) / own.height), height }
  return own
}

/**
 * The volume path of a transform: the file of its width (the asset's own
 * width when it gives none) in its format. The volume holds PNG and WebP;
 * a format it has no file in (e.g. `jpg`) gets the default one, and a width
 * it has no file of gets the original, as before transforms existed.
 */
export function transformedPath(asset: StoredAsset, transform: TransformArgs | undefined): string {
  if (!isTransform(transform)) return asset.url
  const { width } = transformedSize(asset, transform)
  const files = width ? asset.transforms?.[String(width)] : undefined
  if (!files) return asset.url
  const format = formatOf(transform.format)
  return (format ? files[format] : undefined) ?? files[EMBEDDED_TRANSFORM_FORMATS[0]] ?? asset.url
}

/**
 * Craft's `srcset(sizes: ["480w", "2x", …])`: a candidate per size, each the
 * asset's transform (its format among them) at that width; `Nx` multiplies
 * the transform's own width. Sizes the volume has no file for are left out.
 */
export function srcsetOf(asset: StoredAsset, sizes: readonly (string | null)[], transform: TransformArgs | undefined, absolute: (path: string) => string): string | null {
  const base = transform ?? {}
  const current = transformedSize(asset, base).width
  const parts = sizes.flatMap((size) => {
    const match = /^(\d+(?:\.\d+)?)(w|x)$/.exec(size ?? '')
    if (!match) return []
    const width = match[2] === 'w' ? Number(match[1]) : current ? Math.round(current * Number(match[1])) : 0
    if (!width || !asset.transforms?.[String(width)]) return []
    return [`${absolute(transformedPath(asset, { ...base, width, height: null }))} ${size}`]
  })
  return parts.length > 0 ? parts.join(', ') : null
}

/** The arguments of a `@transform` on the field being resolved, variables filled in; undefined without one. */
export function directiveTransform(info: GraphQLResolveInfo): TransformArgs | undefined {
  const directive = info.schema.getDirective(TRANSFORM_DIRECTIVE)
  if (!directive) return undefined
  for (const node of info.fieldNodes) {
    const values = getDirectiveValues(directive, node, info.variableValues)
    if (values) return values as TransformArgs
  }
  return undefined
}

/**
 * The transform a field of an asset shows: a `@transform` on the field wins
 * (Craft applies the directive last), then the field's own arguments, then
 * the transform the asset was given on its assets field.
 */
export function effectiveTransform(asset: TransformedAsset, args: TransformArgs, info: GraphQLResolveInfo): TransformArgs | undefined {
  const onField = directiveTransform(info)
  if (isTransform(onField)) return onField
  if (isTransform(args)) return args
  return asset.appliedTransform
}
