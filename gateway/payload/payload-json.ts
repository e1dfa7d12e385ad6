import type { PagePayload } from '../../shared/payload.ts'
import { scriptJson } from '../../shared/script-json.ts'

/**
 * The JSON of each loader's data, by the data object: cached answers are the
 * same objects on every hit and never changed, so a page's data is
 * serialised once per cached answer instead of once per request.
 */
const dataJson = new WeakMap<object, string>()

function jsonOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return scriptJson(value)
  let json = dataJson.get(value)
  if (json === undefined) dataJson.set(value, (json = scriptJson(value)))
  return json
}

/** The data of several loaders as one JSON object, from the memo. */
export function dataJsonOf(data: Record<string, unknown>): string {
  let out = ''
  for (const key in data) {
    const value = data[key]
    if (value !== undefined) out += `${out ? ',' : ''}${JSON.stringify(key)}:${jsonOf(value)}`
  }
  return `{${out}}`
}

/** A payload as script-safe JSON (it goes into the page as it is): its data from the memo, the rest serialised now. */
export function payloadJson(payload: PagePayload): string {
  const { data, ...rest } = payload
  return payloadJsonWithHead(scriptJson(rest), data)
}

/** A payload's JSON from the JSON of everything but its data (`head`) and its data. */
export function payloadJsonWithHead(head: string, data: Record<string, unknown>): string {
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"data":${dataJsonOf(data)}}`
}
