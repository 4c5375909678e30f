// Each action.yml is the contract with the runner: it must parse, run its own bundle on node24, and
// declare exactly the inputs and outputs the code reads and sets, each described.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { AgentJobInput, AgentJobOutput, FeedbackInput, FeedbackOutput, PublishInput, PublishOutput } from '../src/action/constants.ts';

interface ActionFile {
  runs: { using: string; main: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  branding?: unknown;
}

const ACTIONS = [
  { file: 'action.yml', main: 'dist/index.js', inputs: PublishInput, outputs: PublishOutput },
  { file: 'agent-job/action.yml', main: '../dist/agent-job/index.js', inputs: AgentJobInput, outputs: AgentJobOutput },
  { file: 'feedback/action.yml', main: '../dist/feedback/index.js', inputs: FeedbackInput, outputs: FeedbackOutput }
];

describe.each(ACTIONS)('$file', ({ file, main, inputs, outputs }) => {
  const action = parse(readFileSync(file, 'utf8')) as ActionFile;

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
