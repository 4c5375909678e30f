// The runner emulator's `if:` (emulator/workflow.ts): a step that compares an earlier step's output
// runs only when the comparison holds, and only after success unless it names a status function, as
// GitHub's runner decides (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions);
// a condition it cannot read is refused by name rather than read wrongly.
import { describe, expect, it } from '@jest/globals';
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
