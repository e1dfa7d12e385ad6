// The tables of docs/configuration.md, made from the settings tables of each
// service (gateway/settings/, renderer/config.ts), so the page cannot drift
// from the code. Run with tsx (`npm run config-docs`):
//   (no flag)      print the tables
//   --write FILE   put them into FILE between the markers
//   --check FILE   exit 1 when FILE's tables are not the ones the code makes
//
// Format: per service a `## {service}` heading, per subject (SETTING_SUBJECTS
// of shared/setting-docs.ts, in that order) a `### {service}: {subject}`
// heading and a table | variable | default | values | meaning | how to see it |,
// the variables in the order of their table.
import { GATEWAY_SETTINGS } from '../gateway/settings/index.ts'
import { RENDERER_SETTINGS } from '../renderer/config.ts'
import { SETTING_SUBJECTS, documentedSettings } from '../shared/setting-docs.ts'
import { runGeneratedSection } from './generated-section.mjs'

const BEGIN = '<!-- BEGIN CONFIGURATION (npm run config-docs -- --write docs/configuration.md) -->'
const END = '<!-- END CONFIGURATION -->'
export const SERVICES = [
  ['Gateway', GATEWAY_SETTINGS],
  ['Renderer', RENDERER_SETTINGS],
]

const cell = (text) => text.replaceAll('|', '\\|')

/** GitHub's anchor of a heading. */
const anchor = (heading) => heading.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-')

export function configurationTables() {
  const contents = []
  const tables = []
  for (const [service, subjects] of SERVICES) {
    const settings = documentedSettings(subjects)
    const links = []
    tables.push('', `## ${service}`)
    for (const [subject, title] of Object.entries(SETTING_SUBJECTS)) {
      const ofSubject = settings.filter((setting) => setting.subject === subject)
      if (ofSubject.length === 0) continue
      const heading = `${service}: ${title}`
      links.push(`[${title}](#${anchor(heading)})`)
      tables.push('', `### ${heading}`, '', '| variable | default | values | meaning | how to see it |', '|---|---|---|---|---|')
      for (const setting of ofSubject) {
        tables.push(`| \`${setting.name}\` | ${cell(setting.default)} | ${cell(setting.values)} | ${cell(setting.description)} | ${cell(setting.effect)} |`)
      }
    }
    contents.push(`- **${service}**: ${links.join(' · ')}`)
  }
  return [BEGIN, '', ...contents, ...tables, '', END].join('\n')
}

runGeneratedSection({ begin: BEGIN, end: END, make: configurationTables, what: 'the configuration reference', command: 'npm run config-docs' })
