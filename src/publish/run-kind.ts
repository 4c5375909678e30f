// Which kind of run a step is: each action's entry says it (src/entry/), never an input's value.
// The one reconcile in main.ts serves all three; each action reads only the inputs it declares and
// passes on only the outputs it declares, as actions/cache's restore/ and save/ do over one library.
import { ExportInput, ExportOutput, HostInput, HostOutput, RenewInput, RenewOutput } from '../action/constants.ts';

/** export: the root action (a push); renew: renew/ (the nightly); host: host/ (a URL the team hosts). */
export type RunKind = 'export' | 'renew' | 'host';

export const RUN_KINDS: Record<RunKind, { action: string; inputs: ReadonlySet<string>; outputs: ReadonlySet<string> }> = {
  export: { action: 'the root action', inputs: new Set(Object.values(ExportInput)), outputs: new Set(Object.values(ExportOutput)) },
  renew: { action: 'renew/', inputs: new Set(Object.values(RenewInput)), outputs: new Set(Object.values(RenewOutput)) },
  host: { action: 'host/', inputs: new Set(Object.values(HostInput)), outputs: new Set(Object.values(HostOutput)) }
};

/** The outputs of one kind of run, from every output the outcome gives. */
export function outputsOfKind(kind: RunKind, outputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(outputs).filter(([name]) => RUN_KINDS[kind].outputs.has(name)));
}
