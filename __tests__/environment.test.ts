// A run's environment (src/action/environment.ts): what @actions/core reads and writes goes to the run
// it is called from, so two runs that interleave in one process each keep their own inputs, log,
// outputs, summary and exit code, and the process's own are left as they were.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '../src/action/core.ts';
import { runEnvironment, runIn } from '../src/action/environment.ts';
import { inputVariables } from '../emulator/runner.ts';
import { useTempDir } from './emulators.ts';

const dir = useTempDir('run-environment-');

/** A run's own environment, as in-process.ts makes one: its files in a folder of its own, its log in `log`. */
function environmentOf(name: string, inputs: Record<string, string>) {
  const files = { output: join(dir(), `${name}-output`), summary: join(dir(), `${name}-summary`) };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const variables = { GITHUB_OUTPUT: files.output, GITHUB_STEP_SUMMARY: files.summary, RUNNER_TEMP: dir(), ...inputVariables(inputs) };
  const logged = { text: '' };
  const environment = runEnvironment(variables, (text) => (logged.text += text));
  return { environment, logged, files };
}

/** One step's work, with a turn given to the other run between each call. */
async function step(name: string, fail: boolean): Promise<string> {
  const domain = core.getInput('domain', { required: true });
  await new Promise((resolve) => setTimeout(resolve, 5));
  core.info(`${name} exports ${domain}`);
  core.setSecret(`secret-of-${name}`);
  await new Promise((resolve) => setTimeout(resolve, 5));
  core.setOutput('domain', domain);
  if (fail) core.setFailed(`${name} failed`);
  await core.summary().addHeading(`${name}: ${domain}`, 2).write();
  await new Promise((resolve) => setTimeout(resolve, 5));
  return `${core.variable('RUNNER_TEMP') === dir() ? 'own temp' : 'other temp'}`;
}

describe('two runs interleaved in one process', () => {
  it('each reads its own inputs and writes its own log, outputs, summary and exit code', async () => {
    const push = environmentOf('push', { domain: 'push.example.com' });
    const nightly = environmentOf('nightly', { domain: 'nightly.example.com' });
    const exitCode = process.exitCode;
    const stdoutWrite = process.stdout.write;
    const envBefore = process.env;

    const both = await Promise.all([runIn(push.environment, () => step('push', true)), runIn(nightly.environment, () => step('nightly', false))]);

    expect(both).toEqual(['own temp', 'own temp']);
    expect(push.logged.text).toBe('push exports push.example.com\n::add-mask::secret-of-push\n::error::push failed\n');
    expect(nightly.logged.text).toBe('nightly exports nightly.example.com\n::add-mask::secret-of-nightly\n');
    expect(readFileSync(push.files.output, 'utf8')).toMatch(/^domain<<ghadelimiter_[\w-]+\npush\.example\.com\nghadelimiter_[\w-]+\n$/);
    expect(readFileSync(nightly.files.output, 'utf8')).toMatch(/^domain<<ghadelimiter_[\w-]+\nnightly\.example\.com\nghadelimiter_[\w-]+\n$/);
    expect(readFileSync(push.files.summary, 'utf8')).toBe('<h2>push: push.example.com</h2>\n');
    expect(readFileSync(nightly.files.summary, 'utf8')).toBe('<h2>nightly: nightly.example.com</h2>\n');
    expect([push.environment.exitCode, nightly.environment.exitCode]).toEqual([1, undefined]);
    // The process's own are as they were: its exit code, its stdout, its variables.
    expect([process.exitCode, process.stdout.write, process.env]).toEqual([exitCode, stdoutWrite, envBefore]);
  });

  it('a required input missing in one run fails that run only, naming the input', async () => {
    const without = environmentOf('without', {});
    const withDomain = environmentOf('with', { domain: 'docs.example.com' });
    const read = (environment: typeof without.environment) => runIn(environment, async () => core.getInput('domain', { required: true }));
    await expect(read(without.environment)).rejects.toThrow('Input required and not supplied: domain');
    await expect(read(withDomain.environment)).resolves.toBe('docs.example.com');
  });
});
