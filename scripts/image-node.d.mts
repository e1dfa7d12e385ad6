/** The major of `FROM node:<major>-…` in the Dockerfile. */
export function imageNodeMajor(): number
/** Path of that Node's binary, installed from the npm registry when missing. */
export function ensureImageNode(major?: number): string
