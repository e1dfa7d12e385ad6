import { type Env, type StringRow, readSetting, settingsOf } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'

export const NODE_ENV_SETTING = {
  name: 'NODE_ENV',
  kind: 'string',
  description:
    '`production` (the image sets it) refuses at start `DEV_RELOAD_FILE`, and, unless `DEMO_SITE=true`, a missing `CRAFT_API_URL` and a `SITE_URL` on this machine or over `http://`; nothing else in the gateway depends on it',
  effect: 'with `NODE_ENV=production`, one of those stops the start with a `configuration error` naming the setting (exit code 2)',
} as const satisfies StringRow

/** Dev mode's reload signal; refused where NODE_ENV says production, so a copied dev setting cannot reach a live site. */
export function checkDevReloadFile(env: Env, config: { devReloadFile: string | undefined }): void {
  if (config.devReloadFile !== undefined && readSetting(env, NODE_ENV_SETTING) === 'production') {
    throw new ConfigError('DEV_RELOAD_FILE is for `npm run dev` only and is refused with NODE_ENV=production')
  }
}

/** What `npm run dev` sets. */
export const DEVELOPMENT_SETTINGS = settingsOf('development', {
  devReloadFile: {
    name: 'DEV_RELOAD_FILE',
    kind: 'path',
    defaultText: 'unset (set by `npm run dev`)',
    values: 'a file',
    description:
      'dev only: a file whose content changes when open pages should reload; set, the gateway streams it at `/__dev/reload`, adds `Server-Timing: dev-generation` to every answer and serves the client files as they are rebuilt. Refused with `NODE_ENV=production`',
    effect: '`Server-Timing: dev-generation;desc="…"` on every answer; `GET /__dev/reload` answers an event stream instead of 404',
    companions: [NODE_ENV_SETTING],
  },
})
