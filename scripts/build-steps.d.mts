import type { BuildOptions, Metafile } from 'esbuild'

export const ROOT: string
export function serverBuildOptions(services: ('gateway' | 'renderer')[], options: { dev: boolean; outdir: string }): BuildOptions
export function clientBuildOptions(options: { dev: boolean; outdir: string }): BuildOptions
export function writeAssets(outdir: string, clientMetafile: Metafile, options: { id: string; compress: boolean; minify?: boolean }): { stylesheet: string; client: string; livePreview: string }
