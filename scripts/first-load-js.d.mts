export interface JavaScriptWeight {
  files: number
  raw: number
  gzip: number
  brotli: number
}

/** The whole first visit, with the part that loads before the first paint. */
export interface FirstLoadWeight extends JavaScriptWeight {
  beforePaint: JavaScriptWeight
}

export const BEFORE_PAINT_JS_BUDGET_GZIP_BYTES: number
export const FIRST_VISIT_JS_BUDGET_GZIP_BYTES: number
export function firstLoadJavaScript(root: string): FirstLoadWeight
export function describeFirstLoad(weight: FirstLoadWeight): string
