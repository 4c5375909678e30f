// Each action.yml is the contract with the runner: it must parse, run its own bundle on node24, and
// declare exactly the inputs and outputs the code reads and sets, each described. The three publish
// actions (root, renew/, host/) read and set only their own share (src/publish/run-kind.ts).
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { inputVariable } from '../emulator/runner.ts';
import { actionInputs, ownActionFile } from '../emulator/workflow.ts';
import { readPublishInputs } from '../src/publish/inputs.ts';
import type { RunKind } from '../src/publish/run-kind.ts';
import { AgentJobInput, AgentJobOutput, ExportInput, ExportOutput, FeedbackInput, FeedbackOutput, HostInput, HostOutput, RenewInput, RenewOutput } from '../src/action/constants.ts';

interface ActionFile {
  runs: { using: string; main: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  branding?: unknown;
}

const ACTIONS = [
  { file: 'action.yml', main: 'dist/index.js', inputs: ExportInput, outputs: ExportOutput, most: { inputs: 20, outputs: 12 } },
  { file: 'renew/action.yml', main: '../dist/renew/index.js', inputs: RenewInput, outputs: RenewOutput, most: { inputs: 12, outputs: 12 } },
  { file: 'host/action.yml', main: '../dist/host/index.js', inputs: HostInput, outputs: HostOutput, most: { inputs: 12, outputs: 12 } },
  { file: 'agent-job/action.yml', main: '../dist/agent-job/index.js', inputs: AgentJobInput, outputs: AgentJobOutput },
  { file: 'feedback/action.yml', main: '../dist/feedback/index.js', inputs: FeedbackInput, outputs: FeedbackOutput }
];

describe.each(ACTIONS)('$file', ({ file, main, inputs, outputs, most }) => {
  const action = parse(readFileSync(file, 'utf8')) as ActionFile;

  // Issue 41: each publish action has only what its workflow needs, and no mode hidden in an input's value.
  if (most) {
    it(`has at most ${most.inputs} inputs and ${most.outputs} outputs, and no input whose value picks the kind of run`, () => {
      expect(Object.keys(action.inputs).length).toBeLessThanOrEqual(most.inputs);
      expect(Object.keys(action.outputs).length).toBeLessThanOrEqual(most.outputs);
      for (const [name, input] of Object.entries(action.inputs)) expect([name, /\bauto takes the job|switches to|With (config-path|bundle-url-template)\b/.test(input.description)]).toEqual([name, false]);
      // The poll and request knobs are constants (docs/behaviour.md says which and why).
      for (const knob of ['request-timeout', 'min-poll-interval', 'max-poll-interval', 'min-validity', 'link-margin', 'fail-when-production-expires']) expect(Object.keys(action.inputs)).not.toContain(knob);
    });
  }

  it('runs its own bundle on node24, with branding', () => {
    expect(action.runs).toEqual({ using: 'node24', main });
    expect(existsSync(resolve(dirname(file), action.runs.main))).toBe(true);
    expect(action.branding).toBeDefined();
  });

  it('declares exactly the inputs the code reads, each described', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(inputs).sort());
    for (const [name, input] of Object.entries(action.inputs)) expect([name, typeof input.description]).toEqual([name, 'string']);
  });

  it('declares exactly the outputs the code sets, each described', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(outputs).sort());
    for (const [name, output] of Object.entries(action.outputs)) expect([name, typeof output.description]).toEqual([name, 'string']);
  });
});

// Issue 41: no publish action reads an input its action.yml does not declare, the poll and request
// knobs included. Every read of an INPUT_ variable is recorded while the action reads its inputs
// (they are read once, at the start: src/publish/inputs.ts), with the knobs set as a step might.
describe.each([
  ['action.yml', 'export', { 'api-key': 'mint_test_admin_key', domain: 'docs.example.com' }],
  ['renew/action.yml', 'renew', { 'api-key': 'mint_test_admin_key', 'config-path': 'deploy/values.yaml', 'github-token': 'ghs_token' }],
  ['host/action.yml', 'host', { 'job-id': 'se_3f9a2c1b8e7d4a06', 'bundle-url-template': 'https://bundles.example.com/<job-id>/bundle.tar.gz', 'archive-path': 'out/bundle.tar.gz', 'config-path': 'deploy/values.yaml', 'github-token': 'ghs_token' }]
] as [string, RunKind, Record<string, string>][])('%s', (file, kind, given) => {
  it('reads no input its action.yml does not declare, and none of the poll and request knobs', () => {
    const declared = Object.keys((parse(readFileSync(file, 'utf8')) as ActionFile).inputs).map(inputVariable);
    const knobs = { 'request-timeout': '1s', 'min-poll-interval': '50ms', 'max-poll-interval': '250ms' };
    const read = new Set<string>();
    const saved = process.env;
    const env: Record<string, string> = { ...saved, GITHUB_REPOSITORY: 'acme/deploy', GITHUB_WORKSPACE: '/tmp/workspace' };
    for (const [name, value] of Object.entries({ ...knobs, ...given })) env[inputVariable(name)] = value;
    process.env = new Proxy(env, {
      get: (target, key) => {
        if (typeof key === 'string' && key.startsWith('INPUT_')) read.add(key);
        return Reflect.get(target, key);
      }
    });
    try {
      expect(readPublishInputs(kind).kind).toBe(kind);
    } finally {
      process.env = saved;
    }
    expect(read.size).toBeGreaterThan(Object.keys(given).length);
    expect([...read].filter((variable) => !declared.includes(variable))).toEqual([]);
  });
});

// The workflow emulator (tests, npm run try) runs a README step through the bundle its action.yml
// names: a sub-action's path picks that sub-action's own bundle and defaults.
describe('a step of this repository, as emulator/workflow.ts reads it', () => {
  it.each([
    ['<owner>/<repo>@v1', 'action.yml', 'dist/index.js'],
    ['<owner>/<repo>/renew@v1', 'renew/action.yml', 'dist/renew/index.js'],
    ['<owner>/<repo>/host@v1', 'host/action.yml', 'dist/host/index.js'],
    ['./renew', 'renew/action.yml', 'dist/renew/index.js'],
    ['./host/', 'host/action.yml', 'dist/host/index.js'],
    ['./', 'action.yml', 'dist/index.js']
  ])('%s runs %s (%s)', (uses, file, bundle) => {
    expect(ownActionFile(uses)).toBe(file);
    expect(actionInputs({ uses, with: {} }, (value) => value).bundle).toBe(resolve(bundle));
  });

  it('knows no other action, and gives a sub-action its own defaults', () => {
    expect(ownActionFile('actions/checkout@v5')).toBeUndefined();
    expect(actionInputs({ uses: '<owner>/<repo>/renew@v1', with: { 'config-path': 'deploy/values.yaml' } }, (value) => value).inputs).toMatchObject({ 'renew-within': '72h', 'auto-merge': 'off', 'config-path': 'deploy/values.yaml' });
    expect(actionInputs({ uses: '<owner>/<repo>/host@v1', with: {} }, (value) => value).inputs).not.toHaveProperty('renew-within');
  });
});
