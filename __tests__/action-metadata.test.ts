// The action.yml files are the contract with the runner: they must parse, and declare exactly the
// inputs and outputs the code reads and sets.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { PublishInput, PublishOutput } from '../src/constants.ts';

interface ActionFile {
  runs: { using: string; main: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  branding?: unknown;
}

const read = (path: string) => parse(readFileSync(path, 'utf8')) as ActionFile;

describe('action.yml (publish)', () => {
  const action = read('action.yml');

  it('runs the root bundle on node24, with branding', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
    expect(action.branding).toBeDefined();
  });

  it('declares every input the code reads, each described', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(expect.arrayContaining(Object.values(PublishInput).sort()));
    for (const [name, input] of Object.entries(action.inputs)) expect([name, typeof input.description]).toEqual([name, 'string']);
  });

  it('declares every output the code sets', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(expect.arrayContaining(Object.values(PublishOutput).sort()));
  });
});
