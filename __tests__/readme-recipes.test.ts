// Every workflow in the README and docs/ that uses one of this repository's actions may only pass the inputs
// and read the outputs that action's action.yml declares, so a recipe cannot drift from the code.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';

interface ActionFile {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

const ACTIONS: Record<string, string> = { '': 'action.yml', '/renew': 'renew/action.yml', '/host': 'host/action.yml', '/agent-job': 'agent-job/action.yml', '/feedback': 'feedback/action.yml' };
const OURS = /^<owner>\/<repo>(\/[a-z-]+)?@v\d+$/;

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

// The README's workflows and the recipes moved to docs/.
const pages = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const blocks = pages.flatMap((page) => [...readFileSync(page, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]));

function stepsIn(node: unknown, found: Step[] = []): Step[] {
  if (Array.isArray(node)) node.forEach((item) => stepsIn(item, found));
  else if (node && typeof node === 'object') {
    const step = node as Step;
    if (typeof step.uses === 'string' && OURS.test(step.uses)) found.push(step);
    Object.values(node).forEach((value) => stepsIn(value, found));
  }
  return found;
}

const actionOf = (uses: string) => parse(readFileSync(ACTIONS[OURS.exec(uses)![1] ?? ''], 'utf8')) as ActionFile;

describe('README recipes', () => {
  const recipes = blocks.map((text, index) => ({ index, text, steps: stepsIn(parse(text)) })).filter((recipe) => recipe.steps.length > 0);

  it('land every workflow that edits the same values file on one pull request: no recipe sets pr-branch', () => {
    for (const recipe of recipes) for (const step of recipe.steps) expect([recipe.index, Object.keys(step.with ?? {}).includes('pr-branch')]).toEqual([recipe.index, false]);
  });

  it('include the hosted-bundle recipes', () => {
    expect(recipes.length).toBeGreaterThanOrEqual(8);
    for (const needle of ['aws-actions/configure-aws-credentials', 'aws s3 cp', 'addressing_style path', 'actions/download-artifact', 'helm upgrade']) {
      expect(recipes.some((recipe) => recipe.text.includes(needle))).toBe(true);
    }
  });

  it.each(blocks.map((text, index) => [index, text]).filter(([, text]) => stepsIn(parse(text as string)).length > 0))(
    'workflow %i passes only declared inputs and reads only declared outputs',
    (_index, text) => {
      const steps = stepsIn(parse(text as string));
      const byId = new Map(steps.filter((step) => step.id).map((step) => [step.id!, actionOf(step.uses!)]));
      for (const step of steps) {
        const declared = Object.keys(actionOf(step.uses!).inputs);
        for (const input of Object.keys(step.with ?? {})) expect([step.uses, input, declared.includes(input)]).toEqual([step.uses, input, true]);
      }
      // The runner drops a job output that holds a secret: a link crosses jobs only as its job-id.
      const jobs = (parse(text as string) as { jobs?: Record<string, { outputs?: Record<string, string> }> }).jobs ?? {};
      for (const [job, { outputs = {} }] of Object.entries(jobs)) expect([job, Object.values(outputs).some((value) => value.includes('outputs.bundle-url'))]).toEqual([job, false]);
      expect((text as string).match(/needs\.[\w-]+\.outputs\.bundle-url/)?.[0] ?? 'none').toBe('none');
      for (const [, id, output] of (text as string).matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        const action = byId.get(id);
        if (action) expect([id, output, Object.keys(action.outputs).includes(output)]).toEqual([id, output, true]);
      }
    }
  );
});
