// A fake clock for tests of waits: `sleep` records each wait and moves the time on at once, so a
// test of an hour's backoff runs in a millisecond and can assert every wait.
export function fakeClock(start = 0) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps
  };
}
