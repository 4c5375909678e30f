// The part of @actions/core that the actions use, as the current run sees it (environment.ts): on a
// runner exactly @actions/core; inside runIn(), the same calls on the run's own variables, log,
// outputs, summary and exit code. Import this, not @actions/core, in code a run executes.
import * as core from '@actions/core';
import { asRun } from './environment.ts';

export { summary, variable } from './environment.ts';
export type { Summary } from './environment.ts';

export const getInput = (name: string, options?: core.InputOptions): string => asRun(() => core.getInput(name, options));
export const info = (message: string): void => asRun(() => core.info(message));
export const debug = (message: string): void => asRun(() => core.debug(message));
export const notice = (message: string | Error, properties?: core.AnnotationProperties): void => asRun(() => core.notice(message, properties));
export const warning = (message: string | Error, properties?: core.AnnotationProperties): void => asRun(() => core.warning(message, properties));
export const setSecret = (secret: string): void => asRun(() => core.setSecret(secret));
export const setOutput = (name: string, value: unknown): void => asRun(() => core.setOutput(name, value));
export const setFailed = (message: string | Error): void => asRun(() => core.setFailed(message));
