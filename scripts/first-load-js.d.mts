export interface FirstLoadWeight {
  files: number
  raw: number
  gzip: number
  brotli: number
}

export const FIRST_LOAD_JS_BUDGET_GZIP_BYTES: number
export function firstLoadJavaScript(root: string): FirstLoadWeight
export function describeFirstLoad(weight: FirstLoadWeight): string
