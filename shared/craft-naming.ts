/**
 * How a Craft major names the GraphQL types of a site's content. Craft 5
 * (entry types are global) names an entry type `{entryTypeHandle}_Entry`;
 * Craft 4 names it `{sectionHandle}_{entryTypeHandle}_Entry`.
 */
export const CRAFT_VERSIONS = [4, 5] as const
export type CraftVersion = (typeof CRAFT_VERSIONS)[number]

/** The major the site targets when nothing says otherwise. */
export const DEFAULT_CRAFT_VERSION: CraftVersion = 5

export function entryTypeName(version: CraftVersion, section: string, type: string): string {
  return version === 5 ? `${type}_Entry` : `${section}_${type}_Entry`
}

/** A global set's type: `{handle}_GlobalSet` in both majors. */
export function globalSetTypeName(handle: string): string {
  return `${handle}_GlobalSet`
}

/** A Table field's row type: `{fieldHandle}_TableRow` in both majors. */
export function tableRowTypeName(fieldHandle: string): string {
  return `${fieldHandle}_TableRow`
}

/** An asset volume's type: `{volumeHandle}_Asset` in both majors. */
export function assetTypeName(volumeHandle: string): string {
  return `${volumeHandle}_Asset`
}

/** Parses `4` or `5`; undefined for anything else. */
export function parseCraftVersion(value: string | number | undefined): CraftVersion | undefined {
  const number = Number(value)
  return (CRAFT_VERSIONS as readonly number[]).includes(number) ? (number as CraftVersion) : undefined
}
