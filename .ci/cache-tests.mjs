// Runs the HTTP cache conformance suite (http-tests/cache-tests) against Sluice's private cache and prints what
// passes beside the browsers' published results; `.ci/cache-tests.sh` builds the proxy and calls it:
//
//     node .ci/cache-tests.mjs SUITE_DIRECTORY PROXY_EXECUTABLE BASELINE_FILE [--write-baseline]
//
// It starts the suite's origin server on a free port, then cache-tests-proxy (Sluice's HTTPCache in front of Sluice's
// own transport) in front of it, and runs the suite's client against the proxy with the test set and the request
// settings of a private cache: the suite's client library is called with `browserCache` set, which is how the suite
// tells a private cache from a shared one (its command line always tests a shared cache). Results are counted as
// cache-tests.fyi counts them: a test passes when it succeeds or, for a check, answers "yes", and every test it depends
// on passes.
//
// It fails on any failure of a test the suite marks required, when fewer tests pass than the baseline says, or when a
// test the baseline lists no longer passes. The results, in the suite's format, and the two servers' output are
// written to .build-cache-tests/.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { pathToFileURL } from 'node:url'

const [suiteDirectory, proxyExecutable, baselineFile, option] = process.argv.slice(2)
if (!suiteDirectory || !proxyExecutable || !baselineFile || (option !== undefined && option !== '--write-baseline')) {
  console.error('usage: node .ci/cache-tests.mjs SUITE_DIRECTORY PROXY_EXECUTABLE BASELINE_FILE [--write-baseline]')
  process.exit(2)
}
const outputDirectory = path.resolve('.build-cache-tests')
fs.mkdirSync(outputDirectory, { recursive: true })

const suiteModule = file => import(pathToFileURL(path.join(suiteDirectory, file)).href)
const { default: testSuites } = await suiteModule('tests/index.mjs')
const { runTests, getResults } = await suiteModule('test-engine/client/runner.mjs')
const { determineTestResult, resultTypes } = await suiteModule('test-engine/lib/results.mjs')
const { default: publishedResults } = await suiteModule('results/index.mjs')
const suiteVersion = JSON.parse(fs.readFileSync(path.join(suiteDirectory, 'package.json'), 'utf8')).version

// The tests the suite's runner runs for a private cache: neither those for CDNs nor those it skips for browsers.
const privateCacheTests = testSuites.flatMap(suite => suite.tests).filter(test => !test.cdn_only && !test.browser_skip)

const children = []
let stopping = false
process.on('exit', () => {
  stopping = true
  for (const child of children) child.kill()
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(1))
}

// Starts a program, logging its output to a file, and resolves with the first match of `ready` in its standard
// output; rejects when it exits or stays silent for 60 seconds first.
function start (name, command, args, options, ready) {
  const log = fs.createWriteStream(path.join(outputDirectory, `${name}.log`))
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  child.stderr.pipe(log)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} did not say it was listening within 60 s; see ${log.path}`))
    }, 60_000)
    const lines = readline.createInterface({ input: child.stdout })
    lines.on('line', line => {
      log.write(line + '\n')
      const match = line.match(ready)
      if (match) {
        clearTimeout(timer)
        resolve(match)
      }
    })
    child.on('error', error => {
      clearTimeout(timer)
      reject(new Error(`cannot start ${name} (${command}): ${error.message}`))
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      const message = `${name} exited (${signal ?? `status ${code}`}); see ${log.path}`
      if (stopping) return
      reject(new Error(message))
      // A server that stops during the run fails it, whatever the results say.
      console.error(message)
      process.exitCode = 1
    })
  })
}

const [, originPort] = await start(
  'origin',
  process.execPath,
  [path.join(suiteDirectory, 'test-engine/server/server.mjs')],
  {
    cwd: suiteDirectory,
    env: {
      ...process.env,
      npm_config_protocol: 'http',
      npm_config_port: '0',
      npm_config_pidfile: path.join(outputDirectory, 'origin.pid')
    }
  },
  /^Listening on http:\/\/.*:(\d+)\/$/
)
const [, proxyURL] = await start(
  'proxy',
  proxyExecutable,
  [`http://127.0.0.1:${originPort}`],
  {},
  /^listening on (http:\/\/\S+)$/
)

await runTests(testSuites, true, proxyURL)
const results = getResults()
fs.writeFileSync(path.join(outputDirectory, 'results.json'), JSON.stringify(results, null, 2) + '\n')

// The name of each test's result in the suite's `resultTypes`, as cache-tests.fyi shows it.
function outcomes (implementationResults) {
  const byTest = new Map()
  for (const test of privateCacheTests) {
    const type = determineTestResult(testSuites, test.id, implementationResults)
    byTest.set(test.id, Object.keys(resultTypes).find(name => resultTypes[name] === type))
  }
  return byTest
}

// Counts of one implementation's results: passed (a success or a "yes"), required failures, optimal failures, "no"
// answers to checks, tests whose dependencies failed, and the rest (setup or harness failures, retries, untested).
function summary (name, byTest) {
  const count = (...names) => [...byTest.values()].filter(outcome => names.includes(outcome)).length
  return {
    name,
    passed: count('pass', 'yes'),
    required: count('fail'),
    optimal: count('optional_fail'),
    no: count('no'),
    dependency: count('dependency_fail'),
    other: count('setup_fail', 'harness_fail', 'retry', 'untested')
  }
}

const sluice = outcomes(results)
const rows = [summary('Sluice', sluice)]
for (const browser of publishedResults.filter(implementation => implementation.type === 'browser')) {
  const published = JSON.parse(fs.readFileSync(path.join(suiteDirectory, 'results', browser.file), 'utf8'))
  rows.push(summary(`${browser.name} ${browser.version.split(' ')[0]}`, outcomes(published)))
}

const columns = [
  ['name', ''], ['passed', 'passed'], ['required', 'required failed'], ['optimal', 'optimal failed'],
  ['no', 'checks "no"'], ['dependency', 'dependency failed'], ['other', 'setup, harness, untested']
]
const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map(row => String(row[key]).length)))
const line = cells => cells.map((cell, index) => index === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[index]))
  .join('  ')
console.log(`\ncache-tests ${suiteVersion}, the ${privateCacheTests.length} tests of a private cache:`)
console.log(line(columns.map(([, title]) => title)))
for (const row of rows) console.log(line(columns.map(([key]) => String(row[key]))))

const passing = privateCacheTests.map(test => test.id).filter(id => ['pass', 'yes'].includes(sluice.get(id)))
if (option === '--write-baseline') {
  const record = { suite: suiteVersion, tests: privateCacheTests.length, passed: passing.length, passing }
  fs.writeFileSync(baselineFile, JSON.stringify(record, null, 2) + '\n')
  console.log(`\nwrote ${baselineFile}: ${passing.length} tests pass`)
}
const baseline = JSON.parse(fs.readFileSync(baselineFile, 'utf8'))
const problems = []
const requiredFailures = privateCacheTests.filter(test => sluice.get(test.id) === 'fail')
for (const test of requiredFailures) {
  problems.push(`required test failed: ${test.id} (${test.name}): ${results[test.id]?.[1] ?? 'no detail'}`)
}
if (rows[0].passed < baseline.passed) {
  problems.push(`${rows[0].passed} tests passed, fewer than the ${baseline.passed} of ${baselineFile}`)
}
for (const id of baseline.passing) {
  const outcome = sluice.get(id)
  if (outcome !== 'pass' && outcome !== 'yes') {
    const detail = results[id]?.[1] ? `: ${results[id][1]}` : ''
    problems.push(`${id} passed in ${baselineFile} and now gives ${outcome ?? 'no result'}${detail}`)
  }
}

if (problems.length > 0) {
  console.log(`\ncache-tests failed; results in ${path.join(outputDirectory, 'results.json')}:`)
  for (const problem of problems) console.log(`- ${problem}`)
  process.exitCode = 1
} else if (rows[0].passed > baseline.passed) {
  console.log(`\n${rows[0].passed} tests pass, more than the ${baseline.passed} of ${baselineFile}: update it.`)
}
process.exit()
