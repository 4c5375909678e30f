// `npm run bench:values`: how long the values-file edit takes on the 22 real values files of
// __tests__/fixtures/values-real/, the largest being kube-prometheus-stack's (203 KB). A run makes
// the edit twice: once with a placeholder link before the export (checkPatchable), once for real.
// Each figure is one edit (patchValuesFile, which parses, edits and reads the result back): the
// first call in this process (cold: the code not yet optimised by the engine), then the median and
// the slowest of ROUNDS more. The budget: the largest file's cold edit and its median well under a
// second; the script exits with 1 when either takes a second or more. (The slowest round is shown,
// not judged: on a shared machine it measures the neighbours as much as the edit.)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { patchValuesFile } from '../src/values/values-file.ts';
import { VALUES_MEASUREMENT, type ValuesMeasurement, valuesLargest } from './docs.ts';

const ROUNDS = 15;
const BUDGET_MS = 1000;
const DIR = new URL('../__tests__/fixtures/values-real/', import.meta.url);
const LINK = 'https://static-exports.s3.invalid/se_7c4e9b2a1d6f3e80/bundle.tar.gz?X-Amz-Expires=604800&X-Amz-Signature=5d41402abc4b2a76';
// The duplicate-key file is refused before any edit; it is timed all the same, as a refusal.
const files = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => ({ name, text: readFileSync(new URL(name, DIR), 'utf8') }))
  .sort((a, b) => b.text.length - a.text.length);

let round = 0;

function timeOnce(text: string, name: string): number {
  // A text of its own each round: values-file.ts keeps the files it parsed last, and a round that
  // found its file already parsed would time less than an edit does.
  const fresh = `${text}\n# round ${++round}\n`;
  const started = performance.now();
  try {
    patchValuesFile(name, fresh, 'staticExport', { bundleUrl: LINK, version: '2024-07-15' });
  } catch {
    // refused: the time to say so is what counts
  }
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;

console.log(`Values-file edit (new top-level block), ${ROUNDS} rounds after a cold first call; ${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)}:\n`);
console.log('| file | size | cold | median | slowest |');
console.log('|---|---|---|---|---|');
let largest: { cold: number; median: number } | undefined;
const measured: ValuesMeasurement = { cores: availableParallelism(), load: Number(loadavg()[0].toFixed(2)), rounds: ROUNDS, files: [] };
for (const { name, text } of files) {
  const cold = timeOnce(text, name);
  const warm = Array.from({ length: ROUNDS }, () => timeOnce(text, name));
  largest ??= { cold, median: median(warm) };
  measured.files.push({ file: name, kb: Math.round(text.length / 1024), coldMs: Math.round(cold), medianMs: Math.round(median(warm)) });
  console.log(`| ${name.replace(/__values\.yaml$/, '').replaceAll('__', '/')} | ${(text.length / 1024).toFixed(0)} KB | ${ms(cold)} | ${ms(median(warm))} | ${ms(Math.max(...warm))} |`);
}
console.log(`\nThe largest file (${files[0].name}): ${ms(largest!.cold)} cold, ${ms(largest!.median)} median (budget: well under ${BUDGET_MS} ms).`);
// The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
writeFileSync(VALUES_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
console.log(`Written to ${VALUES_MEASUREMENT}; run npm run docs to update the docs:\n${valuesLargest(measured)}`);
if (Math.max(largest!.cold, largest!.median) >= BUDGET_MS) process.exitCode = 1;
