import type { ScreenName } from '../../shared/routes.ts'

/** Ids of the elements the server writes and the browser bundle reads. */
export const PAYLOAD_SCRIPT_ID = '__PAYLOAD__'
export const CONFIG_SCRIPT_ID = '__CONFIG__'
export const DEFERRED_SCRIPT_ID = '__DEFERRED__'
export const ROOT_ID = 'root'

/** The JSON of one of those elements, in the browser; undefined when the element or its text is missing. */
export function readElementJson<T>(id: string): T | undefined {
  const text = document.getElementById(id)?.textContent
  return text ? (JSON.parse(text) as T) : undefined
}

/** What the browser bundle needs to know about the build it belongs to. */
export interface ClientConfig {
  buildId: string
  buildPollIntervalMs: number
  /** Live preview updates over graphql-transport-ws, when configured. */
  graphqlWsUrl?: string
  /**
   * The chunks the page needs to hydrate (renderer/server/module-preloads.ts): the
   * entry has the browser fetch them all at once, but only after the first
   * paint, so nothing the first screen does not use is fetched before it.
   */
  modulePreloads?: string[]
  /** Each screen's chunk and its static imports, as file names beside the bundle: fetched with a navigation's payload (client/screen-preloads.ts). */
  screenModules?: Partial<Record<ScreenName, string[]>>
}
