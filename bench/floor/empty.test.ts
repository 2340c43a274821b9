import { expect, test } from 'vitest';

// The floor of the suite benchmark: what one empty vitest run costs, started the way the CLI starts one.
test('nothing', () => {
  expect(true).toBe(true);
});
