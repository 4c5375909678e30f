// agent-job/action.yml is the contract with the runner: it must parse, run its own bundle, and declare
// exactly the inputs and outputs the code reads and sets, each described.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { AgentJobInput, AgentJobOutput } from '../src/constants.ts';

interface ActionFile {
  runs: { using: string; main: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  branding?: unknown;
}

const FILE = 'agent-job/action.yml';
const action = parse(readFileSync(FILE, 'utf8')) as ActionFile;

describe(FILE, () => {
  it('runs its own bundle on node24, with branding', () => {
    expect(action.runs).toEqual({ using: 'node24', main: '../dist/agent-job/index.js' });
    expect(existsSync(resolve(dirname(FILE), action.runs.main))).toBe(true);
    expect(action.branding).toBeDefined();
  });

  it('declares exactly the inputs the code reads, each described', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(AgentJobInput).sort());
    for (const [name, input] of Object.entries(action.inputs)) expect([name, typeof input.description]).toEqual([name, 'string']);
  });

  it('declares exactly the outputs the code sets, each described', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(AgentJobOutput).sort());
    for (const [name, output] of Object.entries(action.outputs)) expect([name, typeof output.description]).toEqual([name, 'string']);
  });
});
