// The tables of docs/configuration.md, made from the documentation every
// reader of shared/env.ts takes beside the code that reads the variable
// (gateway/config.ts, renderer/config.ts), so they cannot drift from the code.
// Run with tsx (`npm run config-docs`):
//   (no flag)      print the tables
//   --write FILE   put them into FILE between the markers
//   --check FILE   exit 1 when FILE's tables are not the ones the code makes
//
// Format: per service a `## {service}` heading, per subject (SETTING_SUBJECTS
// of shared/setting-docs.ts, in that order) a `### {service}: {subject}`
// heading and a table | variable | default | values | meaning |, the
// variables in the order the service reads them.
import { loadGatewayConfig } from '../gateway/config.ts'
import { loadRendererConfig } from '../renderer/config.ts'
import { SETTING_SUBJECTS, collectSettings } from '../shared/setting-docs.ts'
import { runGeneratedSection } from './generated-section.mjs'

const BEGIN = '<!-- BEGIN CONFIGURATION (npm run config-docs -- --write docs/configuration.md) -->'
const END = '<!-- END CONFIGURATION -->'
export const SERVICES = [
  ['Gateway', loadGatewayConfig],
  ['Renderer', loadRendererConfig],
]

const cell = (text) => text.replaceAll('|', '\\|')

/** GitHub's anchor of a heading. */
const anchor = (heading) => heading.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-')

export function configurationTables() {
  const contents = []
  const tables = []
  for (const [service, load] of SERVICES) {
    const settings = collectSettings(load)
    const links = []
    tables.push('', `## ${service}`)
    for (const [subject, title] of Object.entries(SETTING_SUBJECTS)) {
      const ofSubject = settings.filter((setting) => setting.doc.subject === subject)
      if (ofSubject.length === 0) continue
      const heading = `${service}: ${title}`
      links.push(`[${title}](#${anchor(heading)})`)
      tables.push('', `### ${heading}`, '', '| variable | default | values | meaning |', '|---|---|---|---|')
      for (const setting of ofSubject) tables.push(`| \`${setting.name}\` | ${cell(setting.default)} | ${cell(setting.values)} | ${cell(setting.doc.meaning)} |`)
    }
    contents.push(`- **${service}**: ${links.join(' · ')}`)
  }
  return [BEGIN, '', ...contents, ...tables, '', END].join('\n')
}

runGeneratedSection({ begin: BEGIN, end: END, make: configurationTables, what: 'the configuration reference', command: 'npm run config-docs' })
