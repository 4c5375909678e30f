// GitHub as it behaves on a bad day, for the GitHub REST emulator: faults armed per call number or
// per operation, from tests and from `npm run emulator -- --github --github-fault KIND@CALL`.

export type GitHubFaultKind =
  | '502'
  | '503'
  | 'reset'
  | 'lost'
  | 'slow'
  | 'secondary'
  | '429'
  | 'primary'
  | 'writer'
  | 'unresolved'
  | 'unresolved-errors'
  | 'exists'
  | 'base-modified'
  | 'computing';

export const GITHUB_FAULT_KINDS: Record<GitHubFaultKind, string> = {
  '502': "the gateway answers 502 with an HTML page; nothing is done",
  '503': "the gateway answers 503 with an HTML page; nothing is done",
  reset: 'the connection is reset before anything is done',
  lost: 'the call is done, then the connection drops before the answer',
  slow: 'the answer comes after VALUE ms (default 3000)',
  secondary: '403 "You have exceeded a secondary rate limit" with retry-after: VALUE s (default 1)',
  '429': '429 with retry-after: VALUE s (default 1)',
  primary: '403 with x-ratelimit-remaining: 0 and a reset VALUE s away (default 1)',
  writer: 'another run of the action creates (or moves) the pull request branch just before the call, unless a run already proposed there',
  unresolved: '422 "Could not resolve to a node" (labels right after a pull request is created)',
  'unresolved-errors': 'the same 422 as GitHub really sends it: "Validation Failed", the reason in errors[].message',
  exists: '422 "Validation Failed", errors[].message "A pull request already exists for …", although no open pull request is listed',
  // GitHub's words, as its merge endpoint answers when the base moves at the moment of the merge, and a
  // retry passes: NixOS/nixpkgs-merge-bot#179 and microsoft/winget-pkgs#437130 quote the whole body;
  // quipper/monorepo-deploy-actions#492 and JSONbored/loopover#1116 retry it.
  'base-modified': '405 "Base branch was modified. Review and try the merge again." (a merge at the moment the base moves); nothing is done',
  // Right after a push GitHub computes the pull request's merge in the background (`mergeable: null`,
  // docs.github.com/rest/pulls/pulls#get-a-pull-request; cirrus-actions/rebase#57, kubernetes-retired/contrib#141),
  // and a merge sent meanwhile is refused with the same 405 as a conflict; a retry passes.
  computing: '405 "Pull Request is not mergeable" while GitHub still computes the merge after a push; nothing is done'
};

export interface GitHubFault {
  kind: GitHubFaultKind;
  /** The n-th call after the fault was armed (1 = the next one). */
  call?: number;
  /** An operation name (git.createRef, pulls.create, …): its calls, `times` of them. */
  operation?: string;
  /** How many calls it hits (with `operation`, or with neither: the next calls). Default 1. */
  times?: number;
  /** Seconds (rate limits) or milliseconds (slow). */
  value?: number;
  /** For `writer`: the branch the other run writes. Default static-export/deploy-values.yaml. */
  branch?: string;
  /** With `operation`: how many of its calls pass before the fault hits (default 0). */
  skip?: number;
}

/** The operation `write` names every call that changes something (a write), whichever route. */
const WRITES = new Set(['git.createRef', 'git.updateRef', 'git.createTree', 'git.createCommit', 'pulls.create', 'pulls.update', 'issues.addLabels', 'issues.removeLabel', 'pulls.merge', 'pulls.updateBranch', 'graphql']);

/** Octokit's names of the calls the emulator serves, by method and path after /repos/{owner}/{repo}. */
const OPERATIONS: [string, RegExp, string][] = [
  ['GET', /^$/, 'repos.get'],
  ['GET', /^\/git\/ref\/heads\//, 'git.getRef'],
  ['GET', /^\/branches\//, 'repos.getBranch'],
  ['POST', /^\/git\/refs$/, 'git.createRef'],
  ['PATCH', /^\/git\/refs\/heads\//, 'git.updateRef'],
  ['GET', /^\/git\/commits\//, 'git.getCommit'],
  ['POST', /^\/git\/trees$/, 'git.createTree'],
  ['POST', /^\/git\/commits$/, 'git.createCommit'],
  ['GET', /^\/contents/, 'repos.getContent'],
  ['GET', /^\/pulls$/, 'pulls.list'],
  ['POST', /^\/pulls$/, 'pulls.create'],
  ['GET', /^\/pulls\/\d+$/, 'pulls.get'],
  ['PATCH', /^\/pulls\/\d+$/, 'pulls.update'],
  ['POST', /^\/issues\/\d+\/labels$/, 'issues.addLabels'],
  ['DELETE', /^\/issues\/\d+\/labels\/.+$/, 'issues.removeLabel'],
  ['GET', /^\/compare\//, 'repos.compareCommits'],
  ['PUT', /^\/pulls\/\d+\/merge$/, 'pulls.merge'],
  ['PUT', /^\/pulls\/\d+\/update-branch$/, 'pulls.updateBranch'],
  ['GET', /^\/actions\/runs$/, 'actions.listWorkflowRunsForRepo'],
  ['POST', /^\/graphql$/, 'graphql']
];
export const OPERATION_NAMES = OPERATIONS.map(([, , name]) => name);

export function operationOf(method: string, pathAfterRepo: string): string | undefined {
  return OPERATIONS.find(([m, pattern]) => m === method && pattern.test(pathAfterRepo))?.[2];
}

/** `KIND@CALL[*TIMES][=VALUE]`, CALL a call number or an operation name: `502@3`, `lost@git.createRef`, `secondary@pulls.create*2=5`. */
export function parseGitHubFault(spec: string): GitHubFault {
  const match = /^([a-z0-9-]+)@([a-zA-Z.]+|\d+)(?:\*(\d+))?(?:=(\d+))?$/.exec(spec.trim());
  const kind = match?.[1] as GitHubFaultKind | undefined;
  if (!match || !kind || !(kind in GITHUB_FAULT_KINDS)) {
    throw new Error(`--github-fault expects KIND@CALL[*TIMES][=VALUE] with KIND one of ${Object.keys(GITHUB_FAULT_KINDS).join(', ')}; got "${spec}"`);
  }
  const at = match[2]!;
  if (!/^\d+$/.test(at) && at !== 'write' && !OPERATION_NAMES.includes(at)) throw new Error(`--github-fault: "${at}" is neither a call number nor one of ${OPERATION_NAMES.join(', ')}, write`);
  return {
    kind,
    ...(/^\d+$/.test(at) ? { call: Number(at) } : { operation: at }),
    ...(match[3] ? { times: Number(match[3]) } : {}),
    ...(match[4] ? { value: Number(match[4]) } : {})
  };
}

export class GitHubFaults {
  private armed: (GitHubFault & { left: number; armedAt: number; skipped: number })[] = [];
  private calls = 0;

  arm(fault: GitHubFault): void {
    this.armed.push({ ...fault, left: fault.times ?? 1, armedAt: this.calls, skipped: 0 });
  }

  clear(): void {
    this.armed = [];
  }

  /** Counts a call and returns the fault it meets, if any. */
  take(operation: string | undefined): GitHubFault | undefined {
    this.calls += 1;
    const index = this.armed.findIndex((fault) =>
      fault.call !== undefined
        ? this.calls - fault.armedAt === fault.call
        : fault.operation === undefined || fault.operation === operation || (fault.operation === 'write' && operation !== undefined && WRITES.has(operation))
    );
    if (index < 0) return undefined;
    const fault = this.armed[index]!;
    if (fault.skipped < (fault.skip ?? 0)) {
      fault.skipped += 1;
      return undefined;
    }
    fault.left -= 1;
    if (fault.left <= 0 || fault.call !== undefined) this.armed.splice(index, 1);
    return fault;
  }
}
