import { checkSequences, requirement } from '../harness/index.ts';

// Generated sequences of creates, shows and lists, each answer held against what the sequence
// created (harness/sequences.ts). Two sequences at a time, each from a seed of its own.
requirement.each(
  'CREATE-PERSISTED',
  [
    { case: 'generated sequences 1 of 2', seedOffset: 1 },
    { case: 'generated sequences 2 of 2', seedOffset: 2 },
  ],
  async (ctx, { seedOffset }) => {
    await checkSequences(ctx, { numRuns: 4, maxCommands: 30, seedOffset });
  },
);
