/** The reference implementation on 127.0.0.1 and a free port, with one behaviour wrapped or as it is. */
import {
  type RunningServer,
  type StartOptions,
  startReferenceServer,
} from '../../../reference-impl/index.ts';

export function reference(options: Omit<StartOptions, 'port' | 'host'> = {}): Promise<RunningServer> {
  return startReferenceServer({ port: 0, host: '127.0.0.1', ...options });
}
