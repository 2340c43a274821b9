/**
 * What a test leaves in its task.meta for the CLI's record (cli/run/collector.ts): the requirement it
 * checks, how it ended, and what it saw of other requirements. Written by outcome.ts. What the Allure
 * results show of it is recorded apart, through allure-js-commons (report.ts).
 */
import type { Level } from '../../../catalog/catalog.ts';
import type { Finding } from '../evidence/finding.ts';
import type { ServerErrorSeen, SlowAnswer } from '../http/client.ts';
import type { RetriedRequest } from '../http/retry.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** The catalog id of the requirement a test checks (exactly one per test). */
    requirementId?: string;
    requirementLevel?: Level;
    /** The row of a table the test checks ("limit=101"), when it checks one. */
    case?: string;
    /** The HTTP requests the test sent (429 retries not counted). */
    exchangeCount?: number;
    /** The first 5xx answers the test received (ANY-NO-5XX fails on them, whatever the test checks). */
    serverErrors?: ServerErrorSeen[];
    /**
     * Answers the test received that break another requirement's rule, as the run's model sees them
     * (model.ts): the roll-up fails the requirement each names, not this test.
     */
    findings?: Finding[];
    /** The attempts sent again because the transport failed (--retries): the test passed flaky with any. */
    retried?: RetriedRequest[];
    /** How many attempts were sent again (retried keeps the first MAX_RETRIED_KEPT). */
    retryCount?: number;
    /** The first answers slower than --max-response-time (ANY-RESPONSE-TIME fails on them), and their count. */
    slowAnswers?: SlowAnswer[];
    slowCount?: number;
    /**
     * The test was not judged: the deployment's rate limit kept one of its requests from an answer
     * longer than a run waits (RateLimited); its skip note says which request and how.
     */
    rateLimited?: { message: string; reproduce: string; paceRate?: number };
    /**
     * The test was not judged: a cause of the deployment's that no requirement's rule names kept it
     * from judging (not-judged.ts: a key asked for and not given, a store that takes no more pets).
     */
    notJudged?: { cause: string; message: string; reproduce: string };
    /**
     * A 5xx the test met that the same request, sent again, did not get (second-opinion.ts): the
     * deployment fails now and then; the test is blocked by ANY-NO-5XX, whose failure names it.
     */
    comeAndGo?: { method: string; url: string; status: number; again: number };
    /**
     * The run's model saw the deployment answer from more than one store (model.ts
     * moreThanOneStore): the first answer that shows it, masked. stores.ts.
     */
    moreThanOneStore?: { expected: string; received: string; reproduce: string };
    /** The test failed on an answer about what the store holds: a pet the run created (a show not found, its id taken), or the list of pets. */
    aboutStoredPets?: boolean;
    /** The test was not judged: these requirements' failures block it (its skip note says how). */
    blockedBy?: string[];
    /** What a blocked test needed, what came back, and the curl line (masked). */
    blockedEvidence?: { expected: string; received: string; reproduce: string };
    /** A blocked test that fails itself unless one of blockedBy fails: what it then says (blocked.ts suspected). */
    blockedOwnFault?: string;
    /**
     * The check itself broke (an exception that is not an HTTP expectation: a bug of the suite, not
     * the server's fault); the CLI then cannot judge (exit 2). "TypeError: x is undefined".
     */
    suiteError?: string;
  }
}
