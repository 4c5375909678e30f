// The runner emulator's `if:` (emulator/workflow.ts): a step that compares an earlier step's output
// runs only when the comparison holds, and only after success unless it names a status function, as
// GitHub's runner decides (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions);
// a condition it cannot read is refused by name rather than read wrongly. And its RUNNER_TEMP: one
// folder for the whole job, as the runner's.
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conditionHolds, parseCondition, runJob } from '../emulator/workflow.ts';

const outputs: Record<string, string> = { 'steps.renew.outputs.merged': 'true', 'steps.renew.outputs.skipped': 'false', 'github.event_name': 'schedule' };
const resolve = (expression: string) => (expression.startsWith('steps.') ? (outputs[expression] ?? '') : outputs[expression]);

describe("the workflow emulator's if:", () => {
  it.each<[string, boolean, boolean]>([
    ["steps.renew.outputs.merged == 'true'", false, true],
    ["${{ steps.renew.outputs.merged == 'true' }}", false, true],
    ["steps.renew.outputs.merged == 'TRUE'", false, true], // GitHub ignores case when comparing strings
    ["steps.renew.outputs.merged != 'true'", false, false],
    ["steps.renew.outputs.skipped == 'true'", false, false],
    ["steps.renew.outputs.missing == ''", false, true], // an output the step did not set reads as empty
    ["steps.renew.outputs.merged == 'true'", true, false], // no status function: success() && …
    ["always() && steps.renew.outputs.merged == 'true'", true, true],
    ["failure() && steps.renew.outputs.merged == 'true'", false, false],
    ["steps.renew.outputs.merged == 'true' && github.event_name == 'schedule'", false, true],
    ["steps.renew.outputs.merged == 'true' && github.event_name == 'push'", false, false],
    ["'a && b' == 'a && b'", false, true], // && inside a literal is text
    ["'it''s' != 'its'", false, true],
    ['success()', false, true],
    ['failure()', true, true],
    ['always()', true, true]
  ])('%s after a failure: %s → runs: %s', (condition, failed, runs) => {
    expect(conditionHolds(condition, failed, resolve)).toBe(runs);
  });

  it.each(["steps.a.outputs.b == 'x' || always()", "!cancelled()", "(steps.a.outputs.b == 'x')", "contains(github.ref, 'main')", 'cancelled()', "steps.a.outputs.b == \"x\""])(
    'refuses %s, naming it',
    (condition) => {
      expect(() => parseCondition(condition)).toThrow(`the workflow emulator does not know if: ${condition}`);
    }
  );

  it('refuses a bare word it does not know (true is not the string \'true\' on GitHub)', () => {
    expect(() => conditionHolds('steps.renew.outputs.merged == true', false, resolve)).toThrow('does not know ${{ true }}');
  });

  it('runs a step only when the earlier output it compares holds, and says why it skipped the other', async () => {
    const runs = await runJob(
      {
        steps: [
          { id: 'decide', run: 'echo "merged=true" >> "$GITHUB_OUTPUT"' },
          { id: 'rollout', if: "steps.decide.outputs.merged == 'true'", run: 'echo rolled out' },
          { if: "steps.decide.outputs.merged != 'true'", run: 'echo nothing to roll out' }
        ]
      },
      { env: {}, known: {} }
    );
    expect(runs.map((run) => run.skipped ?? run.log.trim())).toEqual(['', 'rolled out', "if: steps.decide.outputs.merged != 'true'"]);
  });
});

describe("the workflow emulator's RUNNER_TEMP", () => {
  // A stand-in for one of this repository's actions (the emulator runs `uses: ./<folder>` from the
  // working directory): it reads a file a `run:` step left in RUNNER_TEMP and leaves one for the next.
  const PROBE = `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const temp = process.env.RUNNER_TEMP;
writeFileSync(temp + '/from-action', 'left by an action');
const outputs = { temp, note: readFileSync(process.env.INPUT_NOTE, 'utf8').trim(), output: process.env.GITHUB_OUTPUT };
for (const [name, value] of Object.entries(outputs)) appendFileSync(process.env.GITHUB_OUTPUT, name + '<<EOF\\n' + value + '\\nEOF\\n');
`;

  it('is one folder for the whole job, `run:` steps and actions alike, is ${{ runner.temp }}, and goes with the job; GITHUB_OUTPUT stays per step', async () => {
    const root = mkdtempSync(join(tmpdir(), 'workflow-temp-test-'));
    mkdirSync(join(root, 'probe'));
    writeFileSync(join(root, 'probe', 'action.yml'), 'name: probe\ninputs:\n  note:\n    required: true\nruns:\n  using: node24\n  main: index.mjs\n');
    writeFileSync(join(root, 'probe', 'index.mjs'), PROBE);
    const cwd = process.cwd();
    process.chdir(root);
    let runs: Awaited<ReturnType<typeof runJob>>;
    try {
      runs = await runJob(
        {
          steps: [
            { id: 'first', run: 'echo "left by a run: step" > "$RUNNER_TEMP/note"\necho "temp=$RUNNER_TEMP" >> "$GITHUB_OUTPUT"\necho "output=$GITHUB_OUTPUT" >> "$GITHUB_OUTPUT"' },
            { id: 'probe', uses: './probe', with: { note: '${{ runner.temp }}/note' } },
            { id: 'last', run: 'echo "temp=$RUNNER_TEMP" >> "$GITHUB_OUTPUT"\necho "output=$GITHUB_OUTPUT" >> "$GITHUB_OUTPUT"\necho "from=$(cat "$RUNNER_TEMP/from-action")" >> "$GITHUB_OUTPUT"\necho "expression=${{ runner.temp }}" >> "$GITHUB_OUTPUT"' }
          ]
        },
        { env: {}, known: {} }
      );
    } finally {
      process.chdir(cwd);
      rmSync(root, { recursive: true, force: true });
    }
    const [first, probe, last] = runs.map((run) => run.outputs);
    expect(runs.map((run) => [run.code, run.log.trim()])).toEqual([[0, ''], [0, ''], [0, '']]);
    const temp = first!.temp!;
    expect(temp).toMatch(/workflow-temp-/);
    expect([probe!.temp, last!.temp, last!.expression]).toEqual([temp, temp, temp]);
    expect(probe!.note).toBe('left by a run: step');
    expect(last!.from).toBe('left by an action');
    // Each step writes its outputs to a file of its own, and reads none of another's.
    expect(new Set([first!.output, probe!.output, last!.output]).size).toBe(3);
    expect(Object.keys(last!).sort()).toEqual(['expression', 'from', 'output', 'temp']);
    expect(existsSync(temp)).toBe(false);
  });
});
