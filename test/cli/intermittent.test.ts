// One real cause, one red (issue 35 item 3): a server that starts failing mid-run (every fifth
// request answered 500 from its 400th on) fails ANY-NO-5XX, and the checks that met only those 500s
// are blocked by it, since the same request sent again is answered. At most 4 requirements red; the
// reproduce line of ANY-NO-5XX, pasted into sh against the same server, shows a 500 (it sends the
// request until one comes), and every other failure's line shows its failing status.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, failMessage, type Json } from '../helpers/cli.ts';
import { type LivedRun, replay, runAgainst, startLived, variantNamed } from '../helpers/lived.ts';

beforeAll(build, 180_000);

describe('a server answering every fifth request 500 from its 400th on', () => {
  let run: LivedRun;
  let close: (() => Promise<void>) | undefined;
  let url = '';

  beforeAll(async () => {
    const server = await startLived(variantNamed('fails-after-400'));
    close = () => server.close();
    url = server.url;
    run = await runAgainst(url);
  }, 150_000);
  afterAll(() => close?.());

  test('ANY-NO-5XX fails, naming a deployment that fails now and then; at most 4 requirements red', () => {
    const told = `${failMessage(run.cli).slice(-3000)}\nfailed: ${run.failed.join(' ')}`;
    expect(run.cli.code, told).toBe(1);
    expect(run.failed, told).toContain('ANY-NO-5XX');
    expect(run.failed.length, told).toBeLessThanOrEqual(4);
    const no5xx = (run.summary.results as Json[]).find((r) => r.id === 'ANY-NO-5XX');
    expect(no5xx.received).toMatch(
      /the deployment fails now and then: .* was answered \d{3} when sent again/,
    );
    // The checks that met a 500 are blocked by it, not failed.
    const blockedBy5xx = (run.summary.results as Json[]).filter((r) => r.blockedBy?.includes('ANY-NO-5XX'));
    expect(blockedBy5xx.length + run.failed.length, told).toBeGreaterThan(1);
  });

  test("ANY-NO-5XX's reproduce, pasted into sh against the server, shows a 500", async () => {
    const no5xx = (run.summary.results as Json[]).find((r) => r.id === 'ANY-NO-5XX');
    expect(no5xx.reproduce).toMatch(/^#!\/bin\/sh\n# The deployment fails now and then/);
    expect(await replay(no5xx.reproduce)).toMatch(/^HTTP\/[\d.]+ 500\b/);
  }, 90_000);
});
