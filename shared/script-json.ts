/** Characters that may not stand as they are in JSON inside an HTML script element. */
const UNSAFE_IN_SCRIPT = /[<\u2028\u2029]/
const UNSAFE_IN_SCRIPT_ALL = /[<\u2028\u2029]/g
const ESCAPED: Record<string, string> = { '<': '\\u003c', '\u2028': '\\u2028', '\u2029': '\\u2029' }

/**
 * JSON text made safe to embed in a script element (no `</script>` can end
 * it early); it stays valid JSON with the same value. Text without such a
 * character comes back as it is, after one scan.
 */
export function scriptSafe(json: string): string {
  return UNSAFE_IN_SCRIPT.test(json) ? json.replace(UNSAFE_IN_SCRIPT_ALL, (char) => ESCAPED[char] ?? char) : json
}

/** A value as JSON that is safe inside a script element. */
export function scriptJson(value: unknown): string {
  return scriptSafe(JSON.stringify(value) ?? 'null')
}
