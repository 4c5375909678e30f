// Stands in for undici in the agent-job and feedback bundles (see scripts/build.mjs).
// @actions/http-client imports undici for one thing: the ProxyAgent that getAgentDispatcher() hands
// to fetch(). Those two actions never call it: their requests go through http-client's node:http
// agents, which reach a proxy through `tunnel`. Nothing should construct this class; if a change
// ever does, the step stops here with what to do, rather than quietly going around a proxy.
export class ProxyAgent {
  constructor() {
    throw new Error(
      'This action was bundled without undici, and something asked for its ProxyAgent. ' +
        'Remove this action from the bundles without undici in scripts/build.mjs and run npm run build.'
    );
  }
}
