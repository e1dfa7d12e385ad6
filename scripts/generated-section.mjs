// The command line of a script that generates one section of a Markdown page
// between two marker comments (scripts/craft-model.mjs, scripts/config-docs.mjs):
//   (no flag)      print the section
//   --write FILE   put it into FILE between the markers
//   --check FILE   exit 1 when FILE's section is not the one the code makes
import { readFileSync, writeFileSync } from 'node:fs'

export function runGeneratedSection({ begin, end, make, what, command, argv = process.argv.slice(2) }) {
  const [flag, file] = argv
  if (flag === '--write' || flag === '--check') {
    const text = readFileSync(file, 'utf8')
    const start = text.indexOf(begin)
    const stop = text.indexOf(end)
    if (start === -1 || stop === -1) {
      console.error(`${file}: no markers ${begin} … ${end}`)
      process.exit(1)
    }
    const updated = `${text.slice(0, start)}${make()}${text.slice(stop + end.length)}`
    if (flag === '--write') writeFileSync(file, updated)
    else if (updated !== text) {
      console.error(`${file}: ${what} is out of date; run ${command} -- --write ${file}`)
      process.exit(1)
    }
  } else if (flag === undefined) {
    console.log(make())
  } else {
    console.error(`usage: ${command} [-- --write FILE | --check FILE]`)
    process.exit(2)
  }
}
