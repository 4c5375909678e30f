// GitHub's own wording, as recorded in public with its source (recorded/github.json): the emulator
// answers with it, so the texts the action matches are GitHub's, not the team's.
import { readFileSync } from 'node:fs';

export interface RecordedAnswer {
  status?: number;
  message: string;
  /** The message with its variable parts as {name}: `Required status check "{context}" is expected.` */
  template?: string;
  body?: Record<string, unknown>;
  transient?: boolean;
  source: string;
}

export const RECORDED_GITHUB = JSON.parse(readFileSync(new URL('./recorded/github.json', import.meta.url), 'utf8')) as {
  answers: Record<string, RecordedAnswer>;
  facts: Record<string, { fact: string; source: string }>;
};

/** GitHub's message for a recorded answer, its {names} filled in. */
export function githubSays(id: string, values: Record<string, string> = {}): string {
  const answer = RECORDED_GITHUB.answers[id];
  if (!answer) throw new Error(`No recorded GitHub answer ${id} in emulator/recorded/github.json`);
  return (answer.template ?? answer.message).replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** A recorded fact's wording (recorded/github.json facts), with its source. */
export function githubFact(id: string): string {
  const fact = RECORDED_GITHUB.facts[id];
  if (!fact) throw new Error(`No recorded GitHub fact ${id} in emulator/recorded/github.json`);
  return `${fact.fact} (${fact.source})`;
}
