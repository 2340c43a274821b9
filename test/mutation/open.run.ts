// The reference with no key: every write and read of the suite.
import { checkReference } from './reference.ts';

await checkReference(() => ({}));
