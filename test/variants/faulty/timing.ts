/**
 * Faults of time: a server that answers correctly, but slowly. Judged only with --max-response-time
 * (ANY-RESPONSE-TIME, SHOULD), which the variant's run is given.
 */
import type { Variant } from '../variant.ts';

/** Holds every show (GET /pets/{id}) this long before the reference answers it. */
const SHOW_DELAY_MS = 400;

export const timingVariants: Variant[] = [
  {
    name: 'slow-show',
    kind: 'faulty',
    does: `answers every GET /pets/{id} correctly, ${SHOW_DELAY_MS} ms late, against a budget of 250 ms`,
    breaks: ['ANY-RESPONSE-TIME'],
    server: {
      wrap: (handler) => (req, res) => {
        const delayed = req.method === 'GET' && /\/pets\/[^/?]+(\?|$)/.test(req.url ?? '');
        if (delayed) setTimeout(() => handler(req, res), SHOW_DELAY_MS);
        else handler(req, res);
      },
    },
    args: ['--max-response-time', '250'],
  },
];
