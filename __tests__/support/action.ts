// Moved to emulator/runner.ts (the demo and benchmarks use it too).
export * from '../../emulator/runner.ts';
