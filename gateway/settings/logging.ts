import { LOGGING_SETTINGS } from '../../shared/env.ts'

/** The gateway logs as the renderer does: the same two variables (shared/env.ts). */
export { LOGGING_SETTINGS }
